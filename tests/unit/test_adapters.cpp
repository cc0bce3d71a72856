// PEFT adapters: adapter_config.json and adapter_model.safetensors, checked against the base
// model's linear layers. The adapter below is laid out as PEFT saves a LoRA of rank 8 on
// q_proj and v_proj of Llama-2-7b (the base config is the real one under fixtures/); the
// expected figures are worked out by hand from that config.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "support/fixture_repo.hpp"
#include "support/run_cli.hpp"

namespace fs = std::filesystem;

namespace {

struct Tensor {
  std::string name;
  uint64_t rows, cols;
};

// A LoRA adapter folder: the config, and a safetensors file of `tensors` (F32, zeros).
fs::path adapter_dir(const std::string& name, const std::string& config, const std::vector<Tensor>& tensors) {
  fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "adapters" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "adapter_config.json") << config;
  std::string header = "{";
  uint64_t offset = 0;
  for (const Tensor& t : tensors) {
    const uint64_t bytes = t.rows * t.cols * 4;
    header += (header.size() > 1 ? "," : "") + std::string("\"") + t.name + "\":{\"dtype\":\"F32\",\"shape\":[" + std::to_string(t.rows) + "," +
              std::to_string(t.cols) + "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + bytes) + "]}";
    offset += bytes;
  }
  header += "}";
  const std::string prefix = hfi::testing::padded_safetensors_prefix(header);
  {
    std::ofstream out(dir / "adapter_model.safetensors", std::ios::binary);
    out << prefix;
  }
  fs::resize_file(dir / "adapter_model.safetensors", prefix.size() + offset);  // sparse zeros
  return dir;
}

const char* kConfig = R"({
  "base_model_name_or_path": "meta-llama/Llama-2-7b-hf",
  "bias": "none",
  "fan_in_fan_out": false,
  "inference_mode": true,
  "lora_alpha": 16,
  "lora_dropout": 0.05,
  "modules_to_save": null,
  "peft_type": "LORA",
  "r": 8,
  "target_modules": ["q_proj", "v_proj"],
  "task_type": "CAUSAL_LM"
})";

// Llama-2-7b: 32 layers, hidden 4096; q_proj and v_proj are [4096, 4096] (32 heads, no GQA).
std::vector<Tensor> lora_pairs(int layers) {
  std::vector<Tensor> out;
  for (int l = 0; l < layers; ++l)
    for (const char* m : {"q_proj", "v_proj"}) {
      const std::string p = "base_model.model.model.layers." + std::to_string(l) + ".self_attn." + m;
      out.push_back({p + ".lora_A.weight", 8, 4096});
      out.push_back({p + ".lora_B.weight", 4096, 8});
    }
  return out;
}

hfi::Json json_of(const std::string& text) {
  auto doc = hfi::parse_json(text, "stdout");
  REQUIRE(doc);
  return std::move(doc.value());
}

}  // namespace

TEST_CASE("adapters: a LoRA on q_proj and v_proj of Llama-2-7b, checked against the base") {
  const fs::path base = hfi::testing::fixtures_dir() / "meta-llama/Llama-2-7b-hf";
  const fs::path dir = adapter_dir("clean", kConfig, lora_pairs(32));
  auto r = hfi::testing::run_cli(dir.string() + " --base " + base.string() + " --json");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const hfi::Json doc = json_of(r.out);
  const hfi::Json& a = *doc.find("adapter");
  // 32 layers × 2 modules × (8 × 4096 + 4096 × 8) = 4,194,304.
  CHECK(a.find("params")->as_uint() == 4'194'304u);
  CHECK(a.find("lora_modules")->as_uint() == 64u);
  CHECK(a.find("r")->as_uint() == 8u);
  CHECK(a.find("base")->as_string() == "meta-llama/Llama-2-7b-hf");
  CHECK(a.find("base_checked")->as_bool());
  CHECK(a.find("issues")->items().empty());
  auto check = hfi::testing::run_cli("check " + dir.string() + " --base " + base.string() + " --fail-on adapter");
  CHECK(check.code == 0);
}

TEST_CASE("adapters: a wrong rank, a module the base lacks and a missing layer are findings") {
  const fs::path base = hfi::testing::fixtures_dir() / "meta-llama/Llama-2-7b-hf";
  std::vector<Tensor> tensors = lora_pairs(32);
  tensors.erase(tensors.end() - 2, tensors.end());  // layer 31's v_proj pair
  tensors[0].rows = 16;                               // layer 0's q_proj lora_A at rank 16
  tensors.push_back({"base_model.model.model.layers.0.self_attn.rope_proj.lora_A.weight", 8, 4096});
  tensors.push_back({"base_model.model.model.layers.0.self_attn.rope_proj.lora_B.weight", 4096, 8});
  tensors[4].cols = 11008;  // layer 1's q_proj lora_A as wide as the MLP's inputs, not 4096
  const fs::path dir = adapter_dir("broken", kConfig, tensors);
  auto r = hfi::testing::run_cli("check " + dir.string() + " --base " + base.string() + " --fail-on adapter --format json");
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("adapter:rank:model.layers.0.self_attn.q_proj"));
  CHECK_THAT(r.out, Catch::Contains("adapter:unmatched:model.layers.0.self_attn.rope_proj"));
  CHECK_THAT(r.out, Catch::Contains("adapter:missing:model.layers.31.self_attn.v_proj"));
  CHECK_THAT(r.out, Catch::Contains("adapter:shape:model.layers.1.self_attn.q_proj"));
  // Without the base, only the ranks can be held to the config.
  auto alone = hfi::testing::run_cli("check " + dir.string() + " --fail-on adapter --format json");
  CHECK(alone.code == 1);
  CHECK_THAT(alone.out, Catch::Contains("adapter:rank:model.layers.0.self_attn.q_proj"));
  CHECK_THAT(alone.out, !Catch::Contains("adapter:missing"));
}

TEST_CASE("adapters: an adapter_config.json that cannot be right ends with exit 5 naming the field") {
  for (const auto& [config, field] : std::vector<std::pair<std::string, std::string>>{
           {R"({"peft_type":"LORA","r":0})", "'r'"},
           {R"({"peft_type":"LORA","r":99999999999})", "'r'"},
           {R"({"peft_type":"LORA","r":8,"rank_pattern":{"q_proj":-1}})", "rank_pattern.q_proj"},
           {R"({"peft_type":"LORA","target_modules":[1,2]})", "target_modules"},
           {R"({"peft_type":"LORA","lora_alpha":"big"})", "lora_alpha"},
           {R"([1,2,3])", "adapter_config.json"}}) {
    const fs::path dir = adapter_dir("hostile", config, lora_pairs(1));
    auto r = hfi::testing::run_cli(dir.string());
    INFO(config);
    CHECK(r.code == 5);
    CHECK_THAT(r.err, Catch::Contains(field));
  }
}
