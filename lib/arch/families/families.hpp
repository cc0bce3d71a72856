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
Result<ArchModel> llama4_spec(const ModelConfig& cfg);
Result<ArchModel> mistral3_spec(const ModelConfig& cfg);
Result<ArchModel> mistral4_spec(const ModelConfig& cfg);
// ", Llama-4 query temperature β=…" when rope_parameters.llama_4_scaling_beta is set (Mistral 4, Ministral 3).
std::string describe_llama4_query_scaling(const ModelConfig& cfg);

}  // namespace hfi::arch
