// quantization_config parsing on the real published configs we hold; each expectation is read off
// the config file named beside it (../shared/hub and fixtures/), and the pattern semantics follow
// ../shared/docs/quant-formats.md.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "quant/declared.hpp"
#include "core/json.hpp"
#include "quant/quant_config.hpp"
#include "support/fixture_repo.hpp"
#include "support/inspect.hpp"
#include "support/run_cli.hpp"

namespace {

hfi::QuantDeclaration declared_in(const std::string& config_path) {
  auto json = hfi::parse_json(hfi::testing::slurp(config_path), config_path);
  REQUIRE(json.ok());
  const hfi::Json* qc = json->find("quantization_config");
  if (!qc)
    if (const hfi::Json* text = json->find("text_config")) qc = text->find("quantization_config");
  REQUIRE(qc);
  auto d = hfi::parse_quant_declaration(*qc, "config.json");
  REQUIRE(d.ok());
  return std::move(d.value());
}

bool excluded(const hfi::QuantDeclaration& d, const std::string& module) {
  for (const auto& p : d.excluded)
    if (p.matches(module)) return true;
  return false;
}

std::string fixture_config(const std::string& repo) { return (hfi::testing::fixtures_dir() / repo / "config.json").string(); }

}  // namespace

TEST_CASE("quant config: DeepSeek-V3 FP8 blocks and gpt-oss MXFP4 with prefix patterns") {
  auto fp8 = declared_in(fixture_config("deepseek-ai/DeepSeek-V3"));
  CHECK(fp8.scheme == hfi::QuantScheme::Fp8Block);
  CHECK(fp8.bits == 8u);
  CHECK(fp8.block_size == std::vector<uint64_t>{128, 128});
  CHECK(fp8.activation_scheme == "dynamic");

  auto mx = declared_in(fixture_config("openai/gpt-oss-20b"));
  CHECK(mx.scheme == hfi::QuantScheme::Mxfp4);
  CHECK(std::string(hfi::quant_scheme_name(mx.scheme)) == "mxfp4");
  // "model.layers.*.self_attn" covers every layer's attention; experts stay quantized.
  CHECK(excluded(mx, "model.layers.17.self_attn.q_proj"));
  CHECK(excluded(mx, "model.layers.3.mlp.router"));
  CHECK(excluded(mx, "lm_head"));
  CHECK_FALSE(excluded(mx, "model.layers.3.mlp.experts.gate_up_proj"));
  CHECK_FALSE(excluded(mx, "lm_headless"));
}

TEST_CASE("quant config: the two real NVFP4 configs, compressed-tensors and ModelOpt") {
  auto ct = declared_in(fixture_config("quantized/nvfp4-ct-qwen3-vl-30b-a3b"));  // the real config, copied byte for byte
  CHECK(ct.quant_method == "compressed-tensors");
  CHECK(ct.scheme == hfi::QuantScheme::CtNvfp4);
  CHECK(ct.bits == 4u);
  CHECK(ct.group_size == 16u);
  CHECK(ct.activation_scheme == "dynamic");  // input_activations.dynamic is "local"
  // `ignore` names vision linears exactly; a prefix of one is not a match.
  CHECK(excluded(ct, "model.visual.blocks.0.attn.qkv"));
  CHECK_FALSE(excluded(ct, "model.visual.blocks.0.attn"));
  CHECK_FALSE(excluded(ct, "model.language_model.layers.0.self_attn.q_proj"));

  auto mo = declared_in(fixture_config("quantized/nvfp4-modelopt-gemma-4-26b-a4b"));  // likewise
  CHECK(mo.quant_method == "modelopt");
  CHECK(mo.scheme == hfi::QuantScheme::ModeloptNvfp4);
  CHECK(mo.group_size == 16u);  // ModelOpt NVFP4 always scales 16 values
  // Globs: "model.language_model.layers.0.router*" and "model.vision_tower*".
  CHECK(excluded(mo, "model.language_model.layers.0.router.proj"));
  CHECK(excluded(mo, "model.vision_tower.encoder.layers.3.self_attn.q_proj"));
  CHECK_FALSE(excluded(mo, "model.language_model.layers.0.self_attn.q_proj"));
}

TEST_CASE("quant config: GPTQ, AWQ, bitsandbytes fields; malformed values name the field") {
  auto parse = [](const std::string& text, const std::string& file = "config.json") {
    auto json = hfi::parse_json(text, file);
    REQUIRE(json.ok());
    return hfi::parse_quant_declaration(*json, file);
  };
  auto gptq = parse(R"({"quant_method":"gptq","bits":4,"group_size":-1,"desc_act":true,"sym":true,
                        "dynamic":{"-:model\\.layers\\.0\\..*":{},"+:.*down_proj.*":{"bits":8}}})");
  REQUIRE(gptq.ok());
  CHECK(gptq->scheme == hfi::QuantScheme::Gptq);
  CHECK_FALSE(gptq->group_size.has_value());  // -1: one group spans the whole input
  CHECK(gptq->desc_act == true);
  REQUIRE(gptq->dynamic.size() == 2);
  CHECK(gptq->dynamic[0].skip);
  CHECK(gptq->dynamic[1].bits == 8u);
  auto sidecar = parse(R"({"bits":4,"group_size":128,"desc_act":false})", "quantize_config.json");
  REQUIRE(sidecar.ok());
  CHECK(sidecar->scheme == hfi::QuantScheme::Gptq);  // AutoGPTQ side-cars name no method
  auto awq = parse(R"({"quant_method":"awq","bits":4,"group_size":128,"zero_point":true,"version":"gemv",
                       "modules_to_not_convert":["visual"]})");
  REQUIRE(awq.ok());
  CHECK(awq->scheme == hfi::QuantScheme::AwqGemv);
  CHECK(awq->sym == false);
  CHECK(excluded(*awq, "model.visual.blocks.0.attn.qkv"));  // substring semantics
  auto bnb = parse(R"({"quant_method":"bitsandbytes","load_in_4bit":true,"bnb_4bit_quant_type":"nf4",
                       "bnb_4bit_use_double_quant":true})");
  REQUIRE(bnb.ok());
  CHECK(bnb->scheme == hfi::QuantScheme::Bnb4);
  CHECK(bnb->bnb_quant_type == "nf4");
  auto both = parse(R"({"quant_method":"bitsandbytes","load_in_4bit":true,"load_in_8bit":true})");
  REQUIRE_FALSE(both.ok());
  CHECK_THAT(both.error().describe(), Catch::Contains("load_in_4bit"));
  auto bad_bits = parse(R"({"quant_method":"gptq","bits":1e9})");
  REQUIRE_FALSE(bad_bits.ok());
  CHECK_THAT(bad_bits.error().describe(), Catch::Contains("bits"));
  auto bad_regex = parse(R"({"quant_method":"compressed-tensors","format":"pack-quantized","ignore":["re:(unclosed"]})");
  REQUIRE(bad_regex.ok());  // an invalid regex matches nothing instead of throwing
  CHECK_FALSE(excluded(*bad_regex, "(unclosed"));
  auto odd = parse(R"({"quant_method":"bitnet"})");
  REQUIRE(odd.ok());
  CHECK(odd->scheme == hfi::QuantScheme::Unsupported);
  CHECK_THAT(odd->notes.front(), Catch::Contains("recognised but its tensors are not decoded"));
}

TEST_CASE("quant config: compressed-tensors' older \"compression_config\" key declares the scheme too") {
  // compressed-tensors' ModelCompressor.update_config wrote `config["compression_config"]` (2024
  // llm-compressor / SparseML exports) and its loader still reads that key; such a checkpoint is
  // the ct-fp8-dynamic fixture_config with the block under the old name.
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / "hfinspect-compression-config";
  fs::remove_all(dir);
  hfi::testing::materialize_fixture(hfi::testing::fixtures_dir() / "quantized/ct-fp8-dynamic-llama-3.1-8b", dir);
  std::string text = hfi::testing::slurp(dir / "config.json");
  auto at = text.find("\"quantization_config\"");
  REQUIRE(at != std::string::npos);
  text.replace(at, std::string("\"quantization_config\"").size(), "\"compression_config\"");
  std::ofstream(dir / "config.json", std::ios::trunc) << text;

  auto [snap, r] = hfi::testing::inspect_dir(dir);
  REQUIRE(snap.config);
  auto declared = hfi::declared_quantization(&*snap.config, snap.quant_sidecars);
  REQUIRE(declared);
  REQUIRE(declared->declarations.size() == 1);
  CHECK(declared->declarations.front().scheme == hfi::QuantScheme::Fp8Channel);
  CHECK(r.quant_method == std::optional<std::string>("compressed-tensors"));
  CHECK(r.storage.quant_modules.size() == 224);
  CHECK(r.reconcile.unexplained.empty());
  fs::remove_all(dir);
}
