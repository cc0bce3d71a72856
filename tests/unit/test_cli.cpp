// Runs the real hfinspect binary: exit codes, error messages, local and offline-cache sources.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/json.hpp"
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

// A model directory `name` under `base` holding the config.json of the fixture `repo` with the
// first `from` replaced by `to`: one value changed, the rest as published.
std::string edited_config(const fs::path& base, const std::string& name, const std::string& repo, const std::string& from,
                          const std::string& to) {
  fs::path dir = base / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string text = slurp(hfi::testing::fixtures_dir() / repo / "config.json");
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  std::ofstream(dir / "config.json") << text;
  return dir.string();
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
  CHECK(run("not/a/repo-id").code == 2);
  CHECK(run("not-a-file.json").code == 2);  // a name with a dot is no canonical id
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
  // The field goes on the line after the one the inserted comma takes: the lines before the brace
  // plus two.
  const size_t field_line = static_cast<size_t>(std::count(config.begin(), config.begin() + static_cast<std::ptrdiff_t>(brace), '\n')) + 2;
  config.insert(brace, ",\n  \"my_new_rope_trick\": 3\n");
  std::ofstream(dir / "config.json", std::ios::trunc) << config;

  auto failing = run("check " + dir.string() + " --fail-on unknown-fields");
  CHECK(failing.code == 1);
  CHECK_THAT(failing.out, Catch::Contains("my_new_rope_trick = 3"));
  auto github = run("check " + dir.string() + " --format github");
  CHECK(github.code == 1);
  CHECK_THAT(github.out, Catch::Contains("::error file=" + dir.string() + "/config.json,line=" + std::to_string(field_line) +
                                         ", title=hfinspect unknown-fields::" + dir.string() + ": config field my_new_rope_trick"));

  // SARIF 2.1.0: the fields the schema requires, a rule per kind with a stable id, and the result
  // pointing at the rule and at config.json.
  auto sarif = run("check " + dir.string() + " --fail-on unknown-fields --format sarif");
  CHECK(sarif.code == 1);
  auto doc = hfi::parse_json(sarif.out, "sarif");
  REQUIRE(doc.ok());
  CHECK(doc->find("version")->as_string() == "2.1.0");
  const auto& runs = doc->find("runs")->items();
  REQUIRE(runs.size() == 1);
  const hfi::Json* driver = runs[0].find("tool")->find("driver");
  REQUIRE(driver);
  CHECK(driver->find("name")->as_string() == "hfinspect");
  const auto& rules = driver->find("rules")->items();
  const auto& results = runs[0].find("results")->items();
  REQUIRE(results.size() == 1);
  const hfi::Json& result = results[0];
  CHECK(result.find("ruleId")->as_string() == "unknown-fields");
  const uint64_t rule = result.find("ruleIndex")->as_uint().value_or(999);
  REQUIRE(rule < rules.size());
  CHECK(rules[rule].find("id")->as_string() == "unknown-fields");
  CHECK_THAT(result.find("message")->find("text")->as_string(), Catch::Contains("my_new_rope_trick"));
  CHECK(result.find("level")->as_string() == "error");
  const auto& locations = result.find("locations")->items();
  REQUIRE(locations.size() == 1);
  CHECK(locations[0].find("physicalLocation")->find("artifactLocation")->find("uri")->as_string() == dir.string() + "/config.json");
  const hfi::Json* region = locations[0].find("physicalLocation")->find("region");
  REQUIRE(region);
  CHECK(region->find("startLine")->as_uint() == field_line);
  for (const auto& r : rules) {  // every rule: an id and a description
    CHECK_FALSE(r.find("id")->as_string().empty());
    CHECK_FALSE(r.find("shortDescription")->find("text")->as_string().empty());
  }
  auto summary = run("check " + dir.string() + " --fail-on unknown-fields --format markdown");
  CHECK(summary.code == 1);
  CHECK_THAT(summary.out, Catch::StartsWith("### hfinspect check"));
  CHECK_THAT(summary.out, Catch::Contains("**unknown-fields**"));

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

TEST_CASE("an endpoint that is not http(s) is a usage error") {
  auto r = run("org/name", "HF_ENDPOINT=file:///tmp");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("HF_ENDPOINT"));
}

TEST_CASE("a token with a line break is refused before any request, and never shown") {
  // Sent as it is, "\r\nX-Injected: yes" would reach the server as a header of its own. Nothing
  // listens on port 9: the refusal must come before the first connection.
  auto r = run("org/name", "HF_ENDPOINT=http://127.0.0.1:9 HF_TOKEN=\"$(printf 'hf_secret\\r\\nX-Injected: yes')\"");
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("HF_TOKEN") && Catch::Contains("control character"));
  CHECK_THAT(r.err, !Catch::Contains("hf_secret") && !Catch::Contains("X-Injected"));
  auto flag = run("org/name --token \"$(printf 'hf_secret\\nX: 1')\"", "HF_ENDPOINT=http://127.0.0.1:9");
  CHECK(flag.code == 2);
  CHECK_THAT(flag.err, Catch::Contains("--token") && !Catch::Contains("hf_secret"));
}

TEST_CASE("a token file that is a FIFO does not hold the run") {
  fs::path home = fs::path(HFINSPECT_TEST_WORK_DIR) / "token-home";
  fs::remove_all(home);
  fs::create_directories(home);
  REQUIRE(std::system(("mkfifo " + (home / "token").string()).c_str()) == 0);
  fs::path model = hfi::testing::materialized("HuggingFaceTB/SmolLM2-135M");
  // timeout(1) ends a run that blocks opening the FIFO with 124.
  auto fifo = run(model.string() + " --json", "HF_HOME=" + home.string() + " timeout 30");
  CHECK(fifo.code == 0);
  fs::remove_all(home);
}

TEST_CASE("check fails on a target with nothing to check, instead of passing on nothing") {
  fs::path base = fs::path(HFINSPECT_TEST_WORK_DIR) / "nothing";
  fs::remove_all(base);
  fs::create_directories(base / "empty");
  fs::create_directories(base / "bin-only");
  std::ofstream(base / "bin-only" / "pytorch_model.bin") << "not read";
  fs::create_directories(base / "config-only");
  fs::copy_file(hfi::testing::fixtures_dir() / "meta-llama/Llama-3.1-8B/config.json", base / "config-only" / "config.json");

  auto empty = run("check " + (base / "empty").string());
  CHECK(empty.code == 3);
  CHECK_THAT(empty.out, Catch::Contains("nothing to inspect"));
  auto bin_only = run("check " + (base / "bin-only").string());
  CHECK(bin_only.code == 3);
  CHECK_THAT(bin_only.out, Catch::Contains("pytorch_model.bin"));
  auto inspect_empty = run((base / "empty").string());
  CHECK(inspect_empty.code == 3);
  CHECK_THAT(inspect_empty.err, Catch::Contains("nothing to inspect"));
  // A config alone still gives a report (sizing from the config is a use of its own), but a
  // check of it is a no-weights finding, which the default selection fails on.
  auto report = run((base / "config-only").string() + " --json");
  CHECK(report.code == 0);
  auto config_only = run("check " + (base / "config-only").string());
  CHECK(config_only.code == 1);
  CHECK_THAT(config_only.out, Catch::Contains("no-weights"));
  auto other_kinds = run("check " + (base / "config-only").string() + " --fail-on unexplained");
  CHECK(other_kinds.code == 0);
}

TEST_CASE("configs whose sizes cannot be real end with exit 5 naming the field, never a wrapped figure") {
  fs::path base = fs::path(HFINSPECT_TEST_WORK_DIR) / "hostile-configs";
  // Llama-3.1-8B's own config with one value changed.
  auto with = [&](const std::string& name, const std::string& from, const std::string& to) {
    return edited_config(base, name, "meta-llama/Llama-3.1-8B", from, to);
  };
  auto vocab = run(with("vocab", "\"vocab_size\": 128256", "\"vocab_size\": 4611686018427387904"));
  CHECK(vocab.code == 5);
  CHECK_THAT(vocab.err, Catch::Contains("vocab_size") && Catch::Contains("4611686018427387904"));
  // hidden_size 2^32 - 1 passes the reader, but each square projection then holds nearly 2^64
  // elements, and the model's total cannot be held in 64 bits.
  auto product = run(with("product", "\"hidden_size\": 4096", "\"hidden_size\": 4294967295") + " --json");
  CHECK(product.code == 5);
  auto kv_heads = run(with("kv-heads", "\"num_key_value_heads\": 8", "\"num_key_value_heads\": 18446744073709551615"));
  CHECK(kv_heads.code == 5);
  CHECK_THAT(kv_heads.err, Catch::Contains("num_key_value_heads"));
  auto no_kv = run(with("no-kv-heads", "\"num_key_value_heads\": 8", "\"num_key_value_heads\": 0"));
  CHECK(no_kv.code == 5);
  CHECK_THAT(no_kv.err, Catch::Contains("num_key_value_heads"));
  // A billion layers: the spec stops at its tensor limit instead of allocating until killed.
  auto layers = run(with("layers", "\"num_hidden_layers\": 32", "\"num_hidden_layers\": 1000000000"), "timeout 60");
  CHECK(layers.code == 5);
  CHECK_THAT(layers.err, Catch::Contains("tensors"));
  // Heads 2^32 - 1 wide: at 8,192 tokens the figures fit 64 bits; at 2^22 tokens the attention
  // FLOPs (2 x 32 heads x 2 x (2^32 - 1) x 2^22 x 32 layers, about 2^66) do not, and are refused.
  std::string wide = with("wide-heads", "\"num_key_value_heads\": 8", "\"num_key_value_heads\": 8, \"head_dim\": 4294967295");
  CHECK(run(wide + " --json").code == 0);
  // The context the report defaults to is the config's own: a maximum of 2^62 positions makes
  // the KV cache overflow, which is the config's fault (exit 5), not a usage error.
  auto positions = run(with("positions", "\"max_position_embeddings\": 131072", "\"max_position_embeddings\": 4611686018427387904"));
  CHECK(positions.code == 5);
  CHECK_THAT(positions.err, Catch::Contains("max_position_embeddings"));
  auto ctx = run(wide + " --ctx 4194304");
  CHECK(ctx.code == 2);
  CHECK_THAT(ctx.err, Catch::Contains("--ctx") && Catch::Contains("overflows"));
  // Three sizes multiplied: Qwen2.5-VL's merger is hidden_size × spatial_merge_size² wide, past
  // 64 bits at a merge of 2^32 - 1 although each value passes the reader.
  fs::path vl = base / "merge";
  fs::remove_all(vl);
  fs::create_directories(vl);
  std::string text = slurp(hfi::testing::fixtures_dir() / "Qwen/Qwen2.5-VL-3B-Instruct/config.json");
  const std::string merge = "\"spatial_merge_size\": 2";
  REQUIRE(text.find(merge) != std::string::npos);
  text.replace(text.find(merge), merge.size(), "\"spatial_merge_size\": 4294967295");
  std::ofstream(vl / "config.json") << text;
  auto merged = run(vl.string());
  CHECK(merged.code == 5);
  CHECK_THAT(merged.err, Catch::Contains("spatial_merge_size") && Catch::Contains("does not fit 64 bits"));
}

TEST_CASE("a vision tower alone with sizes that cannot be real ends with exit 5 naming them") {
  // IP-Adapter's image encoder config (clip_vision_model) with one value changed.
  fs::path base = fs::path(HFINSPECT_TEST_WORK_DIR) / "hostile-towers";
  auto with = [&](const std::string& name, const std::string& from, const std::string& to) {
    return run(edited_config(base, name, "InvokeAI/ip_adapter_sd_image_encoder", from, to));
  };
  // (2^32 - 1)² patches: the position table alone passes 64 bits.
  auto image = with("image", "\"image_size\": 224", "\"image_size\": 4294967295");
  CHECK(image.code == 5);
  CHECK_THAT(image.err, Catch::Contains("position_embedding") && Catch::Contains("overflow"));
  auto no_heads = with("no-heads", "\"num_attention_heads\": 16", "\"num_attention_heads\": 0");
  CHECK(no_heads.code == 5);
  CHECK_THAT(no_heads.err, Catch::Contains("num_attention_heads"));
  auto odd_heads = with("odd-heads", "\"num_attention_heads\": 16", "\"num_attention_heads\": 7");
  CHECK(odd_heads.code == 5);
  CHECK_THAT(odd_heads.err, Catch::Contains("not a multiple of num_attention_heads"));
  auto patch = with("patch", "\"patch_size\": 14", "\"patch_size\": 448");
  CHECK(patch.code == 5);
  CHECK_THAT(patch.err, Catch::Contains("smaller than one patch_size"));
}

TEST_CASE("control characters from a config never reach the terminal raw") {
  // An architectures entry that would retitle the window (OSC 0) and clear the screen (CSI 2J),
  // and a C1 CSI (U+009B): printed as visible \xNN text.
  fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "hostile" / "escapes";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string text = slurp(hfi::testing::fixtures_dir() / "meta-llama/Llama-3.1-8B/config.json");
  const std::string from = "\"LlamaForCausalLM\"";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), R"("\u001b]0;pwned\u0007\u001b[2JLlama\u009b31m")");
  std::ofstream(dir / "config.json") << text;
  auto r = run(dir.string());
  CHECK(r.code == 0);
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK(r.out.find('\x07') == std::string::npos);
  CHECK(r.out.find("\xc2\x9b") == std::string::npos);
  CHECK_THAT(r.out, Catch::Contains("\\x1b]0;pwned\\x07\\x1b[2JLlama\\x9b31m"));
}

TEST_CASE("check goes on past a target that fails, reports each, and exits with the worst code") {
  fs::path empty = fs::path(HFINSPECT_TEST_WORK_DIR) / "nothing-at-all";
  fs::remove_all(empty);
  fs::create_directories(empty);
  std::string good = hfi::testing::materialized("meta-llama/Llama-3.1-8B").string();
  auto text = run("check " + empty.string() + " " + good);
  CHECK(text.code == 3);
  CHECK_THAT(text.out, Catch::Contains(empty.string() + ": error (not-found)"));
  CHECK_THAT(text.out, Catch::Contains(good + ": 0 finding(s)"));
  auto json = run("check " + empty.string() + " " + good + " --format json");
  CHECK(json.code == 3);
  CHECK_THAT(json.out, Catch::Contains("\"failed_targets\": 1") && Catch::Contains("\"status\": \"error\"") &&
                           Catch::Contains("\"status\": \"ok\""));
}

TEST_CASE("check: tensors an index lists that the spec does not know are findings, without headers too") {
  fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "index-only-extra";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path fixture = hfi::testing::fixtures_dir() / "meta-llama/Llama-3.1-8B";
  fs::copy_file(fixture / "config.json", dir / "config.json");
  std::string index = slurp(fixture / "model.safetensors.index.json");
  std::string extra;
  for (int i = 0; i < 32; ++i)
    extra += "\"model.layers." + std::to_string(i) + ".self_attn.extra_gate.weight\": \"model-00001-of-00004.safetensors\",";
  index.insert(index.find('{', index.find("\"weight_map\"")) + 1, extra);
  std::ofstream(dir / "model.safetensors.index.json") << index;
  // One tensor the spec expects is left out as well.
  const std::string dropped = "\"model.layers.7.mlp.up_proj.weight\": \"model-00002-of-00004.safetensors\",";
  REQUIRE(index.find(dropped) != std::string::npos);
  index.erase(index.find(dropped), dropped.size());
  std::ofstream(dir / "model.safetensors.index.json") << index;
  auto r = run("check " + dir.string() + " --fail-on unexplained");
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("model.layers.{i}.self_attn.extra_gate.weight") && Catch::Contains("listed in the index"));
  auto missing = run("check " + dir.string() + " --fail-on missing");
  CHECK(missing.code == 1);
  CHECK_THAT(missing.out, Catch::Contains("model.layers.7.mlp.up_proj.weight") && Catch::Contains("not listed in the index"));

  // The report's one place for both, whatever they were found in, agrees with its text.
  auto json = run(dir.string() + " --json");
  REQUIRE(json.code == 0);
  auto doc = hfi::parse_json(json.out, "stdout");
  REQUIRE(doc);
  const hfi::Json& rec = *doc->find("reconcile");
  CHECK(rec.find("source")->as_string() == "index");
  CHECK(rec.find("status")->as_string() == "names-only");
  CHECK(rec.find("unexplained_tensors")->as_uint() == 32u);
  CHECK(rec.find("unexplained_params")->is_null());  // names carry no sizes
  REQUIRE(rec.find("unexplained")->items().size() == 1);
  CHECK(rec.find("unexplained")->items()[0].find("pattern")->as_string() == "model.layers.{i}.self_attn.extra_gate.weight");
  CHECK(rec.find("unexplained")->items()[0].find("tensors")->as_uint() == 32u);
  REQUIRE(rec.find("missing")->items().size() == 1);
  CHECK(rec.find("missing")->items()[0].find("name")->as_string() == "model.layers.7.mlp.up_proj.weight");
  CHECK(rec.find("missing")->items()[0].find("params")->as_uint() == 4096u * 14336u);  // Llama-3.1-8B's up_proj
  auto text = run(dir.string());
  CHECK_THAT(text.out, Catch::Contains("1 missing, 32 unexplained"));
}

TEST_CASE("a timeout variable that is not whole seconds is a usage error naming it, before any request") {
  for (const char* variable : {"HF_HUB_ETAG_TIMEOUT", "HF_HUB_DOWNLOAD_TIMEOUT"})
    for (const char* value : {"abc", "-1", "0", "10.5", "1e3", "3601", "99999999999999999999"}) {
      auto r = run("Qwen/Qwen3-8B", std::string(variable) + "='" + value + "'");
      INFO(variable << "=" << value << ": " << r.err);
      CHECK(r.code == 2);
      CHECK_THAT(r.err, Catch::Contains(variable) && Catch::Contains(std::string("'") + value + "' is not a timeout"));
    }
  // Empty is unset (huggingface_hub's reading); with --timeout the variables are not read at all.
  // Either way the run goes on to the network: here a closed port, exit 4.
  CHECK(run("Qwen/Qwen3-8B --retries 0", "HF_HUB_ETAG_TIMEOUT=").code == 4);
  CHECK(run("Qwen/Qwen3-8B --retries 0 --timeout 5", "HF_HUB_ETAG_TIMEOUT=abc").code == 4);
}

TEST_CASE("COLUMNS that is not a usable width falls back to 80, the width when piped") {
  const std::string target = hfi::testing::fixtures_dir().string() + "/Qwen/Qwen3-8B";
  auto piped = run(target);
  REQUIRE(piped.code == 0);
  for (const char* value : {"abc", "0", "-80", "39", "1001", "99999999999999999999", "80x"}) {
    auto r = run(target, std::string("COLUMNS='") + value + "'");
    INFO("COLUMNS=" << value);
    CHECK(r.code == 0);
    CHECK(r.out == piped.out);
  }
  std::istringstream lines(piped.out);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    // Columns are code points here: the report's non-ASCII characters (→, ×, ·) are one column each.
    CHECK(std::count_if(line.begin(), line.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0) != 0x80; }) <= 80);
  }
}

TEST_CASE("a flag the command does not read is refused, never ignored") {
  const std::string target = hfi::testing::fixtures_dir().string() + "/Qwen/Qwen3-8B";
  struct Case {
    std::string args, flag;
  };
  for (const Case& c : {Case{"completion bash --ctx 4k", "--ctx"}, Case{"completion bash --offline", "--offline"},
                        Case{"completion bash --json", "--json"}, Case{"check " + target + " --color always", "--color"},
                        Case{"fit " + target + " --color never", "--color"}}) {
    auto r = run(c.args);
    INFO(c.args << ": " << r.err);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.flag) && Catch::Contains("is not read by hfinspect"));
  }
  // The flags each command does read still work, before or after the target.
  const std::string checked = hfi::testing::fixtures_dir().string() + "/meta-llama/Llama-3.1-8B";  // index and config: 0 findings
  CHECK(run("--offline check " + checked + " --ctx 4k").code == 0);
  CHECK(run("diff " + target + " " + target + " --color never --ctx 8k").code == 0);
  CHECK(run("completion bash").code == 0);
  // Two format flags that disagree: neither is dropped silently.
  auto both = run(target + " --json --markdown");
  CHECK(both.code == 2);
  CHECK_THAT(both.err, Catch::Contains("--markdown") && Catch::Contains("json was asked for too"));
}
