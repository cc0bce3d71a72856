// `hfinspect diff`: every expected difference below was read off the two published configs by
// hand (fixtures/Qwen/Qwen3-8B/config.json, fixtures/Qwen/Qwen3-30B-A3B/config.json, ...), not
// taken from a run of the tool.
#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "reference/reference_configs.hpp"
#include "support/fixture_repo.hpp"
#include "support/run_cli.hpp"

namespace fs = std::filesystem;
using hfi::testing::run_cli;

namespace {
std::string fixture(const std::string& repo) { return (hfi::testing::fixtures_dir() / repo).string(); }
}  // namespace

TEST_CASE("diff Qwen3-8B Qwen3-30B-A3B: sizes, the MoE fields, dense MLP swapped for experts") {
  // Wide enough that no row wraps: this checks what a row says (tests/cli checks the 80-column layout).
  auto r = run_cli("diff " + fixture("Qwen/Qwen3-8B") + " " + fixture("Qwen/Qwen3-30B-A3B") + " --color never", "COLUMNS=200");
  REQUIRE(r.code == 0);
  const std::string& out = r.out;
  CHECK_THAT(out, Catch::Contains("~ hidden_size: 4096 → 2048"));
  CHECK_THAT(out, Catch::Contains("~ num_hidden_layers: 36 → 48"));
  CHECK_THAT(out, Catch::Contains("~ intermediate_size: 12288 → 6144"));
  CHECK_THAT(out, Catch::Contains("~ num_key_value_heads: 8 → 4"));
  CHECK_THAT(out, Catch::Contains("~ model_type: \"qwen3\" → \"qwen3_moe\""));
  for (const char* added : {"+ num_experts = 128", "+ num_experts_per_tok = 8", "+ moe_intermediate_size = 768",
                            "+ decoder_sparse_step = 1", "+ norm_topk_prob = true"})
    CHECK_THAT(out, Catch::Contains(added));
  // Unchanged fields are not listed.
  CHECK_THAT(out, !Catch::Contains("num_attention_heads") && !Catch::Contains("vocab_size") && !Catch::Contains("head_dim:"));
  // Structure: the dense MLP goes, 128 experts per layer and a router arrive; attention is reshaped.
  CHECK_THAT(out, Catch::Contains("- model.layers.{i}.mlp.gate_proj.weight: [12288, 4096] ×36"));
  CHECK_THAT(out, Catch::Contains("+ model.layers.{i}.mlp.experts.{j}.gate_proj.weight: [768, 2048] ×6144"));  // 48 × 128
  CHECK_THAT(out, Catch::Contains("+ model.layers.{i}.mlp.gate.weight: [128, 2048] ×48"));
  CHECK_THAT(out, Catch::Contains("~ model.layers.{i}.self_attn.k_proj.weight: [1024, 4096] ×36 → [512, 2048] ×48"));
  // Figures: 30,532,122,624 is the Hub total of Qwen3-30B-A3B (TRUTHS.md); 36 and 48 layers.
  CHECK_THAT(out, Catch::Contains("→ 30,532,122,624"));
  CHECK_THAT(out, Catch::Contains("layers: 36 → 48"));

  auto json = run_cli("diff " + fixture("Qwen/Qwen3-8B") + " " + fixture("Qwen/Qwen3-30B-A3B") + " --format json");
  REQUIRE(json.code == 0);
  CHECK_THAT(json.out, Catch::Contains(R"("key": "num_experts")"));
  CHECK_THAT(json.out, Catch::Contains(R"("source": "specs")"));
  auto md = run_cli("diff " + fixture("Qwen/Qwen3-8B") + " " + fixture("Qwen/Qwen3-30B-A3B") + " --format markdown");
  CHECK_THAT(md.out, Catch::Contains("| `hidden_size` | `4096` | `2048` |"));
}

TEST_CASE("diff A alone: a lightly edited Llama-3.1-8B config finds Llama-3.1-8B as its nearest reference") {
  fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "diff" / "llama-edit";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string config = hfi::testing::slurp(hfi::testing::fixtures_dir() / "meta-llama/Llama-3.1-8B/config.json");
  auto at = config.find("\"rope_theta\": 500000.0");
  REQUIRE(at != std::string::npos);
  config.replace(at, std::string("\"rope_theta\": 500000.0").size(), "\"rope_theta\": 1000000.0");
  std::ofstream(dir / "config.json") << config;
  auto r = run_cli("diff " + dir.string() + " --color never");
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("B  meta-llama/Llama-3.1-8B"));
  CHECK_THAT(r.out, Catch::Contains("nearest bundled reference"));
  CHECK_THAT(r.out, Catch::Contains("~ rope_parameters.rope_theta: 1000000.0 → 500000.0"));  // rope_theta, under its transformers 5 name
  CHECK_THAT(r.out, Catch::Contains("(1 changed, 0 added, 0 removed)"));
  CHECK_THAT(r.out, !Catch::Contains(" 0 patterns identical"));

  CHECK(run_cli("diff").code == 2);
}

TEST_CASE("diff A alone: a copy of a published config finds where it came from; a repository is not its own relative") {
  // A folder holding Llama-3.1-8B's config.json, byte for byte, under another name.
  fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "diff" / "llama-copy";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(hfi::testing::fixtures_dir() / "meta-llama/Llama-3.1-8B/config.json", dir / "config.json");
  auto copy = run_cli("diff " + dir.string() + " --color never", "COLUMNS=200");  // one line per fact
  REQUIRE(copy.code == 0);
  CHECK_THAT(copy.out, Catch::Contains("B  meta-llama/Llama-3.1-8B"));
  CHECK_THAT(copy.out, Catch::Contains("the same config.json, field for field"));

  // Asked as the repository itself, the nearest is another model.
  auto config = hfi::ModelConfig::parse(hfi::testing::slurp(dir / "config.json"), "config.json");
  REQUIRE(config);
  auto nearest = hfi::nearest_reference(*config, "meta-llama/Llama-3.1-8B");
  REQUIRE(nearest);
  CHECK(nearest->repo != "meta-llama/Llama-3.1-8B");
  CHECK(nearest->distance > 0);
}

TEST_CASE("the bundled references are top-level published configs, never the constructed quantized ones") {
  for (const auto& ref : hfi::reference_configs()) {
    INFO(ref.repo);
    CHECK(std::count(ref.repo.begin(), ref.repo.end(), '/') == 1);
    CHECK(!ref.repo.starts_with("quantized/"));
    CHECK(!ref.repo.starts_with("tools/"));
  }
  // The deliberately broken checkpoints exist, and none of them is offered.
  CHECK(fs::exists(hfi::testing::fixtures_dir() / "quantized/broken/scale-shape-llama-3.1-8b/config.json"));
}

TEST_CASE("diff DeepSeek-V3 Mistral-Small-4: the differences a reader finds in the two configs") {
  // Mistral Small 4's config is DERIVED from published sources (its PROVENANCE.md); the
  // expectations are the issue's list, each value read from the two config files.
  auto r = run_cli("diff " + fixture("deepseek-ai/DeepSeek-V3") + " " + fixture("mistralai/Mistral-Small-4-119B-2603") +
                   " --color never");
  REQUIRE(r.code == 0);
  const std::string& out = r.out;
  CHECK_THAT(out, Catch::Contains("~ hidden_size: 7168 → 4096"));
  CHECK_THAT(out, Catch::Contains("~ num_hidden_layers: 61 → 36"));
  CHECK_THAT(out, Catch::Contains("~ kv_lora_rank: 512 → 256"));         // MLA ranks halved...
  CHECK_THAT(out, Catch::Contains("~ q_lora_rank: 1536 → 1024"));        // ...or nearly
  CHECK_THAT(out, Catch::Contains("~ n_routed_experts: 256 → 128"));
  CHECK_THAT(out, Catch::Contains("~ num_experts_per_tok: 8 → 4"));
  CHECK_THAT(out, Catch::Contains("~ n_group: 8 → 1"));                  // ungrouped routing
  CHECK_THAT(out, Catch::Contains("~ topk_group: 4 → 1"));
  CHECK_THAT(out, Catch::Contains("~ first_k_dense_replace: 3 → 0"));    // no dense first layers
  CHECK_THAT(out, Catch::Contains("- scoring_func = \"sigmoid\""));      // softmax router...
  CHECK_THAT(out, Catch::Contains("- model.layers.{i}.mlp.gate.e_score_correction_bias: [256] ×59"));  // ...without the bias
  CHECK_THAT(out, Catch::Contains("~ rope_parameters.factor: 40 → 128.0"));  // YaRN settings
  CHECK_THAT(out, Catch::Contains("~ rope_parameters.original_max_position_embeddings: 4096 → 8192"));
  CHECK_THAT(out, Catch::Contains("+ rope_parameters.llama_4_scaling_beta = 0.1"));
  CHECK_THAT(out, Catch::Contains("- model.layers.{i}.mlp.down_proj.weight: [7168, 18432] ×3"));  // the 3 dense layers
  CHECK_THAT(out, !Catch::Contains("torch_dtype"));  // torch_dtype and dtype compare as one field
  // DeepSeek-V3 is Mistral Small 4's nearest bundled relative (MLA + MoE), itself aside.
  auto config = hfi::ModelConfig::parse(hfi::testing::slurp(fixture("mistralai/Mistral-Small-4-119B-2603") + "/config.json"), "config.json");
  REQUIRE(config);
  auto nearest = hfi::nearest_reference(*config, "mistralai/Mistral-Small-4-119B-2603");
  REQUIRE(nearest);
  CHECK(nearest->repo == "deepseek-ai/DeepSeek-V3");
}

TEST_CASE("diff with headers on both sides compares what is stored: an added lora_A and a reshaped norm show") {
  // Two copies of SmolLM2-135M's checkpoint; B's header gains a LoRA tensor after the data and
  // stores model.norm.weight as [1, 576] (the same 1,152 bytes). Their configs are the same file.
  const fs::path fixture_dir = hfi::testing::fixtures_dir() / "HuggingFaceTB/SmolLM2-135M";
  fs::path a = hfi::testing::fresh_work_dir("diff-stored-a"), b = hfi::testing::fresh_work_dir("diff-stored-b");
  for (const fs::path& dir : {a, b}) fs::copy_file(fixture_dir / "config.json", dir / "config.json");
  std::string header = hfi::testing::slurp(fixture_dir / "model.safetensors.header.json");
  const uint64_t end = hfi::testing::max_data_offset(header);
  hfi::testing::write_sparse_safetensors(a / "model.safetensors", header, end);

  const std::string norm = R"("model.norm.weight":{"dtype":"BF16","shape":[576])";
  auto at = header.find(norm);
  REQUIRE(at != std::string::npos);
  header.replace(at, norm.size(), R"("model.norm.weight":{"dtype":"BF16","shape":[1,576])");
  const uint64_t lora_bytes = 8 * 576 * 2;  // [8, 576] in BF16
  header.insert(header.size() - 1, R"(,"model.layers.0.self_attn.q_proj.lora_A.weight":{"dtype":"BF16","shape":[8,576],"data_offsets":[)" +
                                       std::to_string(end) + "," + std::to_string(end + lora_bytes) + "]}");
  hfi::testing::write_sparse_safetensors(b / "model.safetensors", header, end + lora_bytes);

  auto r = run_cli("diff " + a.string() + " " + b.string() + " --color never");
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("from checkpoints"));
  CHECK_THAT(r.out, Catch::Contains("Config fields  (identical)"));
  CHECK_THAT(r.out, Catch::Contains("~ model.norm.weight: [576]") && Catch::Contains("→ [1, 576]"));
  CHECK_THAT(r.out, Catch::Contains("+ model.layers.{i}.self_attn.q_proj.lora_A.weight: [8, 576]"));
  CHECK_THAT(r.out, Catch::Contains("params.total: 134,515,008 → 134,519,616"));  // + 8 × 576
}
