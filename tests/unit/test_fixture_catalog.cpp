// Every fixture folder with a published.json is checked against the figures in it. Those figures
// are published (the Hub's safetensors total, an index's total_size, a loaded-model count printed
// in public logs) or derived by hand from them, and published.json says where each came from; none
// comes from running hfinspect. Adding a family's fixture therefore needs no new test code.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/json.hpp"
#include "support/inspect.hpp"

namespace {

namespace fs = std::filesystem;

std::vector<std::string> catalogued_repos() {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(hfi::testing::fixtures_dir()))
    if (e.is_regular_file() && e.path().filename() == "published.json")
      out.push_back(fs::relative(e.path().parent_path(), hfi::testing::fixtures_dir()).generic_string());
  std::sort(out.begin(), out.end());
  return out;
}

hfi::Json read_json(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = hfi::parse_json(ss.str(), p.string());
  REQUIRE(j.ok());
  return std::move(j.value());
}

std::optional<uint64_t> number(const hfi::Json& j, const char* key) {
  const hfi::Json* v = j.find(key);
  return v ? v->as_uint() : std::nullopt;
}

}  // namespace

TEST_CASE("catalogued fixtures reproduce their published figures with nothing unexplained") {
  auto repos = catalogued_repos();
  REQUIRE(!repos.empty());
  for (const auto& repo : repos) {
    INFO(repo);
    hfi::Json pub = read_json(hfi::testing::fixtures_dir() / repo / "published.json");
    auto [snap, r] = hfi::testing::inspect_fixture(repo);
    // A spec must have produced the report: the generic fallback does not count as coverage.
    REQUIRE(r.spec.has_value());
    if (const hfi::Json* t = pub.find("model_type")) CHECK(r.model_type == t->as_string());  // the root model_type
    if (auto total = number(pub, "params_total")) CHECK(r.params.total == *total);
    if (auto active = number(pub, "params_active")) CHECK(r.params.active == *active);
    if (auto kv = number(pub, "kv_bytes_per_token")) CHECK(r.kv.bytes_per_token == *kv);
    if (!snap.shards.empty()) {
      CHECK(r.reconcile.missing.empty());
      CHECK(r.reconcile.shape_mismatches.empty());
      CHECK(r.reconcile.unexplained.empty());
      // A real index that disagrees with its own shards lists the subjects it must be reported for
      // ("index_mismatch_subjects": e.g. metadata.total_size), and nothing else; see PROVENANCE.md.
      std::vector<std::string> expected, found;
      if (const hfi::Json* ex = pub.find("index_mismatch_subjects"))
        for (const auto& item : ex->items()) expected.push_back(item.as_string());
      for (const auto& line : r.index_mismatches) found.push_back(line.substr(0, line.find(':')));
      CHECK(found == expected);
      // Published byte figures: the index's total_size against the headers' tensor data (unless
      // the index is known to leave shards out), and the files' size on disk.
      if (auto size = number(pub, "index_total_size"); size && expected.empty()) {
        CHECK(r.index_total_size == size);
        CHECK(r.storage.stored_bytes == *size);
      }
      if (auto bytes = number(pub, "file_bytes")) CHECK(r.storage.file_bytes == *bytes);
    } else if (snap.index) {
      REQUIRE(r.index_reconcile.has_value());
      CHECK(r.reconcile.missing.empty());
      CHECK(r.reconcile.unexplained.empty());
      if (auto n = number(pub, "index_tensors")) CHECK(r.index_reconcile->listed_tensors == *n);
      if (auto size = number(pub, "index_total_size")) {
        CHECK(r.index_reconcile->total_size == size);
        // Holds for single-dtype checkpoints; mixed ones set "index_bytes_mixed_dtype".
        if (!pub.find("index_bytes_mixed_dtype")) CHECK(r.index_reconcile->expected_bytes == *size);
      }
    }
  }
}
