// One builder per architecture family; the registry maps model_type strings onto them.
#pragma once

#include "arch/blocks.hpp"

namespace hfi::arch {

AttentionDims read_attention_dims(const ConfigReader& r);

Result<ArchModel> llama_spec(const ModelConfig& cfg);
Result<ArchModel> mistral_spec(const ModelConfig& cfg);
Result<ArchModel> qwen2_spec(const ModelConfig& cfg);
Result<ArchModel> qwen3_spec(const ModelConfig& cfg);
Result<ArchModel> qwen2_moe_spec(const ModelConfig& cfg);
Result<ArchModel> qwen3_moe_spec(const ModelConfig& cfg);
Result<ArchModel> mixtral_spec(const ModelConfig& cfg);
Result<ArchModel> deepseek_v2_spec(const ModelConfig& cfg);
Result<ArchModel> deepseek_v3_spec(const ModelConfig& cfg);
Result<ArchModel> gpt_oss_spec(const ModelConfig& cfg);
Result<ArchModel> phi3_spec(const ModelConfig& cfg);
Result<ArchModel> phi_spec(const ModelConfig& cfg);
Result<ArchModel> gpt2_spec(const ModelConfig& cfg);
Result<ArchModel> falcon_spec(const ModelConfig& cfg);

}  // namespace hfi::arch
