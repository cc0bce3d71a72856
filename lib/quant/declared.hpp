// Where a checkpoint declares its quantization, located once: config.json's quantization_config
// (the text model's own block first, then the root's), then the side-cars quantize_config.json
// and hf_quant_config.json.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"
#include "formats/model_config.hpp"
#include "quant/quant_config.hpp"

namespace hfi {

struct DeclaredQuantization {
  std::vector<QuantDeclaration> declarations;      // in the order above, as far as present
  std::optional<std::string> config_quant_method;  // config.json's quant_method, as written
};

// `config` may be null (no config.json); `sidecars` are the side-car files present, in order.
Result<DeclaredQuantization> declared_quantization(const ModelConfig* config, const std::vector<JsonFile>& sidecars);

}  // namespace hfi
