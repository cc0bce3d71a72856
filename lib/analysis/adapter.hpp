// A PEFT adapter held up against its base model: the adapter's own parameters, and each LoRA
// pair checked against the base linear it sits on (lora_A [r, in], lora_B [out, r]).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/storage.hpp"
#include "arch/spec.hpp"
#include "formats/adapter_config.hpp"

namespace hfi {

struct AdapterIssue {
  std::string kind;     // "shape", "rank", "unmatched", "missing", "unpaired"
  std::string module;   // the base module's path (model.layers.0.self_attn.q_proj)
  std::string message;  // one line for people
};

struct AdapterSummary {
  AdapterConfig config;
  uint64_t params = 0;          // every tensor the adapter stores
  uint64_t lora_modules = 0;    // base modules with a LoRA pair
  uint64_t saved_params = 0;    // of `params`, the full copies of modules_to_save
  bool base_checked = false;    // a base spec was there to check against
  std::vector<AdapterIssue> issues;
};

// `base` may be null (no base config at hand): then only the pairs' own ranks are checked.
AdapterSummary analyse_adapter(const AdapterConfig& config, const StorageView& stored, const ArchModel* base);

}  // namespace hfi
