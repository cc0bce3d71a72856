// model_type -> spec. Multimodal configs are looked up by their language model's model_type.
#include <array>

#include "arch/families/families.hpp"

namespace hfi {
namespace {

Result<ArchModel> run_guarded(Result<ArchModel> (*fn)(const ModelConfig&), const ModelConfig& cfg) {
  try {
    return fn(cfg);
  } catch (const arch::SpecError& e) {
    return malformed("config.json", "", e.what());
  }
}

#define HFI_SPEC(type, fn) \
  SpecEntry { type, [](const ModelConfig& c) { return run_guarded(&arch::fn, c); } }

const SpecEntry kSpecs[] = {
    HFI_SPEC("llama", llama_spec),
    HFI_SPEC("mistral", mistral_spec),
    HFI_SPEC("qwen2", qwen2_spec),
    HFI_SPEC("qwen3", qwen3_spec),
    HFI_SPEC("qwen2_moe", qwen2_moe_spec),
    HFI_SPEC("qwen3_moe", qwen3_moe_spec),
    HFI_SPEC("mixtral", mixtral_spec),
    HFI_SPEC("deepseek_v2", deepseek_v2_spec),
    HFI_SPEC("deepseek_v3", deepseek_v3_spec),
    HFI_SPEC("gpt_oss", gpt_oss_spec),
    HFI_SPEC("phi3", phi3_spec),
    HFI_SPEC("phi", phi_spec),
    HFI_SPEC("gpt2", gpt2_spec),
    HFI_SPEC("falcon", falcon_spec),
};

#undef HFI_SPEC

}  // namespace

const SpecEntry* find_spec(const std::string& model_type) {
  for (const auto& s : kSpecs)
    if (model_type == s.model_type) return &s;
  return nullptr;
}

std::vector<std::string> supported_model_types() {
  std::vector<std::string> out;
  for (const auto& s : kSpecs) out.emplace_back(s.model_type);
  return out;
}

}  // namespace hfi
