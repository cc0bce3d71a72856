// adapter_config.json, as PEFT writes it beside adapter_model.safetensors: what kind of adapter,
// on which base model, of which rank, on which modules.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

namespace hfi {

struct AdapterConfig {
  std::string peft_type;   // "LORA", "ADALORA", ...
  std::string base_model;  // base_model_name_or_path, as written
  uint64_t r = 8;          // PEFT's default rank
  double alpha = 8;        // lora_alpha (PEFT's default: 8)
  // target_modules: names (a module is targeted when its own name is one of them), or one
  // regular expression PEFT matches against the whole module path, kept as text.
  std::vector<std::string> target_modules;
  std::string target_regex;
  std::vector<std::string> modules_to_save;
  std::map<std::string, uint64_t> rank_pattern;  // module name or path suffix -> its rank
  bool use_dora = false;
  std::vector<std::string> repeated_keys;
};

// Ranks and counts must be positive integers of at most 2^20 (a rank past any base model's
// width): anything else is an error naming the field.
Result<AdapterConfig> parse_adapter_config(std::string_view text, std::string_view file);

}  // namespace hfi
