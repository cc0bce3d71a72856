// hfinspect-fixture FIXTURE_DIR OUT_DIR: builds a model directory with sparse full-size
// .safetensors shards from a fixture's header files (used by the README demo and benchmarks).
#include <cstdio>
#include <exception>

#include "support/fixture_repo.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: hfinspect-fixture FIXTURE_DIR OUT_DIR\n");
    return 2;
  }
  try {
    size_t shards = hfi::testing::materialize_fixture(argv[1], argv[2]);
    std::fprintf(stderr, "hfinspect-fixture: %zu shard(s) written to %s\n", shards, argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hfinspect-fixture: %s\n", e.what());
    return 1;
  }
  return 0;
}
