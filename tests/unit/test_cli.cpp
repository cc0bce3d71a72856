// Runs the real hfinspect binary: exit codes, error messages, local and offline-cache sources.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/bytes.hpp"
#include "support/fixture_repo.hpp"
#include "support/run_cli.hpp"

namespace fs = std::filesystem;

namespace {

using Run = hfi::testing::CliRun;
using hfi::testing::slurp;

Run run(const std::string& args, const std::string& env = "") { return hfi::testing::run_cli(args, env); }

// A model directory with Llama-3.1-8B's config and one shard holding `shard_bytes`.
fs::path hostile_repo(const std::string& name, const std::string& shard_bytes, const std::string& file = "model.safetensors") {
  fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "hostile" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(hfi::testing::fixtures_dir() / "meta-llama/Llama-3.1-8B/config.json", dir / "config.json");
  std::ofstream(dir / file, std::ios::binary) << shard_bytes;
  return dir;
}

}  // namespace

TEST_CASE("hostile files end with exit code 5 and name the file and the field") {
  using hfi::testing::safetensors_prefix;
  using hfi::testing::with_length;
  struct Case {
    const char* name;
    std::string bytes;
    const char* expect;
  };
  std::vector<Case> cases = {
      {"huge-length", with_length(uint64_t{1} << 62, "{}"), "header length"},
      {"truncated", with_length(4096, R"({"a":{"dtype":"F32")"), "header length"},
      {"bad-utf8", safetensors_prefix("{\"\xc3\x28\":{}}"), "UTF-8"},
      {"bad-json", safetensors_prefix("{\"a\":}"), "not valid JSON"},
      {"overlap", safetensors_prefix(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}})") + "123456",
       "b.data_offsets"},
      {"overflow", safetensors_prefix(R"({"a":{"dtype":"U8","shape":[18446744073709551615,2],"data_offsets":[0,4]}})") + "1234",
       "a.shape"},
      {"unknown-dtype", safetensors_prefix(R"({"a":{"dtype":"Q8_0","shape":[4],"data_offsets":[0,4]}})") + "1234", "a.dtype"},
      {"tiny", "abc", "header length"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    auto dir = hostile_repo(c.name, c.bytes);
    auto r = run(dir.string());
    CHECK(r.code == 5);
    CHECK_THAT(r.err, Catch::Contains("model.safetensors") && Catch::Contains(c.expect));
    CHECK(r.out.empty());
  }
}

TEST_CASE("hostile shard names in the index end with exit code 5") {
  auto dir = hostile_repo("evil-index", "");
  fs::remove(dir / "model.safetensors");
  std::ofstream(dir / "model.safetensors.index.json") << R"({"weight_map":{"lm_head.weight":"../../../etc/passwd"}})";
  auto r = run(dir.string());
  CHECK(r.code == 5);
  CHECK_THAT(r.err, Catch::Contains("model.safetensors.index.json") && Catch::Contains("weight_map.lm_head.weight"));
}

TEST_CASE("usage and not-found exit codes") {
  CHECK(run("").code == 2);
  CHECK(run("--ctx 0 x/y").code == 2);
  CHECK(run("not-a-repo-id").code == 2);
  auto missing = run("nobody/nothing --offline", "HF_HUB_CACHE=" + (fs::path(HFINSPECT_TEST_WORK_DIR) / "empty-cache").string());
  CHECK(missing.code == 3);
  CHECK_THAT(missing.err, Catch::Contains("nobody/nothing") && Catch::Contains("not in the cache"));
}

TEST_CASE("a Hugging Face cache snapshot gives the same report as the directory") {
  // Lay out models--org--name/{refs/main, snapshots/<sha>/...} with blobs behind symlinks.
  fs::path cache = fs::path(HFINSPECT_TEST_WORK_DIR) / "hf-cache";
  fs::remove_all(cache);
  std::string sha = "0123456789abcdef0123456789abcdef01234567";
  fs::path repo = cache / "models--HuggingFaceTB--SmolLM2-135M";
  fs::path snap = repo / "snapshots" / sha;
  fs::create_directories(snap);
  fs::create_directories(repo / "refs");
  std::ofstream(repo / "refs" / "main") << sha;  // written without a newline, as huggingface_hub does
  fs::path src = hfi::testing::materialized("HuggingFaceTB/SmolLM2-135M");
  fs::create_directories(repo / "blobs");
  int n = 0;
  for (const auto& e : fs::directory_iterator(src)) {
    std::string blob = "blob" + std::to_string(n++);
    fs::copy_file(e.path(), repo / "blobs" / blob);
    fs::create_symlink(fs::path("../../blobs") / blob, snap / e.path().filename());
  }
  auto from_cache = run("HuggingFaceTB/SmolLM2-135M --offline --json", "HF_HUB_CACHE=" + cache.string());
  REQUIRE(from_cache.code == 0);
  CHECK_THAT(from_cache.out, Catch::Contains("\"commit\": \"" + sha + "\""));
  CHECK_THAT(from_cache.out, Catch::Contains("\"total\": 134515008"));
  auto by_revision = run("HuggingFaceTB/SmolLM2-135M@" + sha + " --json", "HF_HUB_OFFLINE=1 HF_HUB_CACHE=" + cache.string());
  CHECK(by_revision.code == 0);
  auto unknown_rev = run("HuggingFaceTB/SmolLM2-135M@v9 --offline", "HF_HUB_CACHE=" + cache.string());
  CHECK(unknown_rev.code == 3);
  CHECK_THAT(unknown_rev.err, Catch::Contains("revision 'v9'"));
}

TEST_CASE("reports are deterministic and JSON goes to stdout alone") {
  auto dir = hfi::testing::materialized("openai/gpt-oss-20b").string();
  auto a = run(dir + " --json");
  auto b = run(dir + " --json");
  REQUIRE(a.code == 0);
  CHECK(a.out == b.out);
  CHECK(a.err.empty());
  CHECK_THAT(a.out, Catch::StartsWith("{\n  \"schema_version\": 1,"));
  auto text = run(dir);
  CHECK(text.code == 0);
  CHECK(text.out.find("\033[") == std::string::npos);  // not a TTY: no colour
  auto colored = run(dir + " --color always");
  CHECK(colored.out.find("\033[") != std::string::npos);
  auto md = run(dir + " --markdown");
  CHECK_THAT(md.out, Catch::StartsWith("### hfinspect"));
}

TEST_CASE("check: an invented config field fails CI until a baseline accepts it") {
  fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "check" / "invented";
  fs::remove_all(dir);
  fs::create_directories(dir.parent_path());
  // A fresh sparse copy: fs::copy would write every hole out as gigabytes of zeros.
  hfi::testing::materialize_fixture(hfi::testing::fixtures_dir() / "meta-llama/Llama-3.1-8B", dir);
  std::string config = slurp(dir / "config.json");
  auto brace = config.rfind('}');
  REQUIRE(brace != std::string::npos);
  config.insert(brace, ",\n  \"my_new_rope_trick\": 3\n");
  std::ofstream(dir / "config.json", std::ios::trunc) << config;

  auto failing = run("check " + dir.string() + " --fail-on unknown-fields");
  CHECK(failing.code == 1);
  CHECK_THAT(failing.out, Catch::Contains("my_new_rope_trick = 3"));
  auto github = run("check " + dir.string() + " --format github");
  CHECK(github.code == 1);
  CHECK_THAT(github.out, Catch::Contains("::error title=hfinspect unknown-fields::" + dir.string() + ": config field my_new_rope_trick"));

  fs::path baseline = dir.parent_path() / "baseline.json";
  CHECK(run("check " + dir.string() + " --fail-on unknown-fields --write-baseline " + baseline.string()).code == 0);
  CHECK_THAT(slurp(baseline), Catch::Contains("unknown-fields:my_new_rope_trick"));
  auto accepted = run("check " + dir.string() + " --fail-on unknown-fields --baseline " + baseline.string());
  CHECK(accepted.code == 0);
  CHECK_THAT(accepted.out, Catch::Contains("in the baseline"));

  // The untouched checkpoint has nothing to report, whatever kinds are selected.
  auto clean = run("check " + hfi::testing::materialized("meta-llama/Llama-3.1-8B").string() + " --format json");
  CHECK(clean.code == 0);
  CHECK_THAT(clean.out, Catch::Contains("\"new_findings\": 0"));
  CHECK(run("check " + dir.string() + " --fail-on nonsense").code == 2);
}

TEST_CASE("check: a header tensor the spec does not know is an unexplained finding") {
  // SmolLM2's header with one extra tensor: the llama spec has no place for it.
  fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "check" / "extra-tensor";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(hfi::testing::fixtures_dir() / "HuggingFaceTB/SmolLM2-135M/config.json", dir / "config.json");
  std::string header = slurp(hfi::testing::fixtures_dir() / "HuggingFaceTB/SmolLM2-135M/model.safetensors.header.json");
  uint64_t end = hfi::testing::max_data_offset(header);
  auto brace = header.rfind('}');
  header.insert(brace, ",\"model.router_probe.weight\":{\"dtype\":\"BF16\",\"shape\":[4],\"data_offsets\":[" +
                           std::to_string(end) + "," + std::to_string(end + 8) + "]}");
  hfi::testing::write_sparse_safetensors(dir / "model.safetensors", header, end + 8);
  auto r = run("check " + dir.string());
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("unexplained") && Catch::Contains("model.router_probe.weight"));
  CHECK(run("check " + dir.string() + " --fail-on unknown-fields,missing").code == 0);
}

TEST_CASE("check: unknown generation_config and tokenizer_config keys are findings too") {
  // Llama-3.1-8B ships a generation_config.json; Mistral-7B a tokenizer_config.json. Both are
  // clean as published; one invented key in each must be named with its file.
  fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "check" / "side-files";
  fs::remove_all(dir);
  fs::create_directories(dir.parent_path());
  hfi::testing::materialize_fixture(hfi::testing::fixtures_dir() / "meta-llama/Llama-3.1-8B", dir);
  CHECK(run("check " + dir.string() + " --fail-on unknown-fields").code == 0);
  std::string generation = slurp(dir / "generation_config.json");
  generation.insert(generation.rfind('}'), ",\n  \"dry_multiplier\": 0.8\n");
  std::ofstream(dir / "generation_config.json", std::ios::trunc) << generation;
  std::ofstream(dir / "tokenizer_config.json", std::ios::trunc)
      << R"({"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "legacy": false, "fancy_normalizer": "nfkc"})";
  auto failing = run("check " + dir.string() + " --fail-on unknown-fields");
  CHECK(failing.code == 1);
  CHECK_THAT(failing.out, Catch::Contains("generation_config.json key dry_multiplier = 0.8"));
  CHECK_THAT(failing.out, Catch::Contains("tokenizer_config.json key fancy_normalizer"));
  CHECK_THAT(failing.out, !Catch::Contains("legacy"));
  auto json = run(dir.string() + " --json");
  CHECK_THAT(json.out, Catch::Contains(R"("file": "generation_config.json")"));
  fs::path baseline = dir.parent_path() / "side-baseline.json";
  CHECK(run("check " + dir.string() + " --fail-on unknown-fields --write-baseline " + baseline.string()).code == 0);
  CHECK_THAT(slurp(baseline), Catch::Contains("unknown-fields:generation_config.json:dry_multiplier"));
  CHECK(run("check " + dir.string() + " --fail-on unknown-fields --baseline " + baseline.string()).code == 0);
}
