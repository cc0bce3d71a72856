#include "quant/declared.hpp"

namespace hfi {
namespace {

// compressed-tensors before transformers took its block over (2024) wrote it as
// "compression_config" (ModelCompressor.update_config; its loader still reads that key).
const Json* quantization_block(const Json& level) {
  const Json* block = level.find("quantization_config");
  if (!block || block->is_null()) block = level.find("compression_config");
  return block && !block->is_null() ? block : nullptr;
}

}  // namespace

Result<DeclaredQuantization> declared_quantization(const ModelConfig* config, const std::vector<JsonFile>& sidecars) {
  DeclaredQuantization out;
  if (config) {
    for (const Json* level : {&config->text(), &config->root()}) {
      const Json* block = quantization_block(*level);
      if (!block) continue;
      auto declared = parse_quant_declaration(*block, "config.json");
      if (!declared) return declared.error();
      out.declarations.push_back(std::move(declared.value()));
      break;  // a text_config's own block wins over the wrapper's copy
    }
    // The method as the config spells it; the root's wins where both name one.
    for (const Json* level : {&config->text(), &config->root()}) {
      const Json* block = quantization_block(*level);
      if (!block || !block->is_object()) continue;
      if (const Json* m = block->find("quant_method"); m && m->is_string()) out.config_quant_method = m->as_string();
    }
  }
  for (const auto& file : sidecars) {
    auto declared = parse_quant_declaration(file.json, file.path);
    if (!declared) return declared.error();
    out.declarations.push_back(std::move(declared.value()));
  }
  return out;
}

}  // namespace hfi
