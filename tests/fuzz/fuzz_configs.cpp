// libFuzzer target: config.json (then every spec that claims its model_type, and the report),
// generation_config.json, tokenizer_config.json, adapter_config.json, model_index.json, modules.json and the quantization declarations (config.json's
// quantization_config, quantize_config.json, hf_quant_config.json) on the same bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "arch/spec.hpp"
#include "formats/adapter_config.hpp"
#include "formats/model_config.hpp"
#include "formats/pipeline_layout.hpp"
#include "formats/side_configs.hpp"
#include "quant/quant_config.hpp"
#include "pipeline/analyse.hpp"

namespace {

// Specs allocate per layer, per expert and per tower block: a fuzzed depth of 10^9 anywhere in the
// config (vision_config.depth, audio_config.num_layers, ...) would only measure the allocator.
bool asks_for_too_much(const hfi::Json& j) {
  if (j.is_array()) {
    for (const auto& item : j.items())
      if (asks_for_too_much(item)) return true;
    return false;
  }
  for (const auto& [key, value] : j.members()) {
    bool counts_blocks = key.find("layers") != std::string::npos || key.find("experts") != std::string::npos ||
                         key.find("depth") != std::string::npos || key.find("blocks") != std::string::npos;
    if (counts_blocks && value.is_number() && value.as_double().value_or(0) > 64) return true;
    if (asks_for_too_much(value)) return true;
  }
  return false;
}

void declarations(std::string_view text) {
  auto json = hfi::parse_json(text, "quantize_config.json");
  if (!json || !json->is_object()) return;
  for (const char* file : {"quantize_config.json", "hf_quant_config.json"}) {
    auto d = hfi::parse_quant_declaration(*json, file);
    if (d)
      for (const auto& p : d->excluded) (void)p.matches("model.layers.0.self_attn.q_proj");
  }
  if (const hfi::Json* qc = json->find("quantization_config")) (void)hfi::parse_quant_declaration(*qc, "config.json");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)hfi::parse_generation_config(text, "generation_config.json");
  (void)hfi::parse_tokenizer_config(text, "tokenizer_config.json");
  (void)hfi::parse_model_index(text, "model_index.json");
  (void)hfi::parse_modules_json(text, "modules.json");
  (void)hfi::parse_adapter_config(text, "adapter_config.json");
  declarations(text);
  auto cfg = hfi::ModelConfig::parse(text, "config.json");
  if (!cfg || asks_for_too_much(cfg->root())) return 0;
  // Bound the work a fuzzed config can ask for: specs allocate per layer and per expert.
  for (const char* key : {"num_hidden_layers", "n_routed_experts", "num_experts", "num_local_experts",
                          "num_nextn_predict_layers"})
    if (auto v = cfg->integer({key}); v && *v > 64) return 0;
  const hfi::SpecEntry* spec = hfi::find_spec(cfg->model_type());
  if (!spec) spec = hfi::find_spec(cfg->text_model_type());
  if (spec) {
    auto model = spec->build(*cfg);
    if (model) {
      hfi::Snapshot snap;
      snap.config = *cfg;
      hfi::ReportOptions options;
      auto report = hfi::build_report(snap, options);
      if (report) (void)hfi::render_json(*report);
    }
  }
  return 0;
}
