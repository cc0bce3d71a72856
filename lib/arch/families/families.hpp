// One builder per architecture family; the registry maps model_type strings onto them.
#pragma once

#include "arch/blocks.hpp"

namespace hfi::arch {

AttentionDims read_attention_dims(const ConfigReader& r);
// Text decoders shared with multimodal specs (they read the language-model level of the config).
ArchModel dense_decoder(const ModelConfig& cfg, const char* family, bool qkv_bias_always, bool qk_norm);
ArchModel qwen_moe_decoder(const ModelConfig& cfg, const char* family, bool qwen3, bool fused_experts);

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
Result<ArchModel> gemma_spec(const ModelConfig& cfg);
Result<ArchModel> gemma2_spec(const ModelConfig& cfg);
Result<ArchModel> gemma3_text_spec(const ModelConfig& cfg);
Result<ArchModel> gemma3_spec(const ModelConfig& cfg);
Result<ArchModel> qwen2_5_vl_spec(const ModelConfig& cfg);
Result<ArchModel> qwen3_vl_spec(const ModelConfig& cfg);
Result<ArchModel> qwen3_vl_moe_spec(const ModelConfig& cfg);
Result<ArchModel> olmo2_spec(const ModelConfig& cfg);
Result<ArchModel> olmoe_spec(const ModelConfig& cfg);
Result<ArchModel> granite_spec(const ModelConfig& cfg);
Result<ArchModel> granitemoe_spec(const ModelConfig& cfg);
Result<ArchModel> glm4_moe_spec(const ModelConfig& cfg);
Result<ArchModel> cohere2_spec(const ModelConfig& cfg);
Result<ArchModel> qwen3_next_spec(const ModelConfig& cfg);
Result<ArchModel> lfm2_spec(const ModelConfig& cfg);
Result<ArchModel> nemotron_h_spec(const ModelConfig& cfg);
Result<ArchModel> gemma4_spec(const ModelConfig& cfg);
Result<ArchModel> gemma3n_spec(const ModelConfig& cfg);
Result<ArchModel> llama4_spec(const ModelConfig& cfg);
Result<ArchModel> mistral3_spec(const ModelConfig& cfg);
Result<ArchModel> mistral4_spec(const ModelConfig& cfg);
Result<ArchModel> smollm3_spec(const ModelConfig& cfg);
Result<ArchModel> qwen2_vl_spec(const ModelConfig& cfg);
Result<ArchModel> mimo_spec(const ModelConfig& cfg);
Result<ArchModel> qwen3_5_moe_text_spec(const ModelConfig& cfg);
Result<ArchModel> phimoe_spec(const ModelConfig& cfg);
Result<ArchModel> internlm2_spec(const ModelConfig& cfg);
Result<ArchModel> pangu_embedded_spec(const ModelConfig& cfg);
Result<ArchModel> minimax_m1_spec(const ModelConfig& cfg);
Result<ArchModel> qwen_spec(const ModelConfig& cfg);
Result<ArchModel> bloom_spec(const ModelConfig& cfg);
Result<ArchModel> chatglm_spec(const ModelConfig& cfg);
Result<ArchModel> m2m_100_spec(const ModelConfig& cfg);
Result<ArchModel> gpt_neox_spec(const ModelConfig& cfg);
Result<ArchModel> starcoder2_spec(const ModelConfig& cfg);
// ", Llama-4 query temperature β=…" when rope_parameters.llama_4_scaling_beta is set (Mistral 4, Ministral 3).
std::string describe_llama4_query_scaling(const ModelConfig& cfg);
Result<ArchModel> bert_spec(const ModelConfig& cfg);
Result<ArchModel> roberta_spec(const ModelConfig& cfg);
Result<ArchModel> xlm_roberta_spec(const ModelConfig& cfg);
Result<ArchModel> modernbert_spec(const ModelConfig& cfg);
Result<ArchModel> distilbert_spec(const ModelConfig& cfg);
Result<ArchModel> phi3_spec(const ModelConfig& cfg);
Result<ArchModel> phi_spec(const ModelConfig& cfg);
Result<ArchModel> gpt2_spec(const ModelConfig& cfg);
Result<ArchModel> falcon_spec(const ModelConfig& cfg);
Result<ArchModel> jamba_spec(const ModelConfig& cfg);
Result<ArchModel> ernie4_5_moe_spec(const ModelConfig& cfg);

// Issue 28 families.
Result<ArchModel> opt_spec(const ModelConfig& cfg);
Result<ArchModel> gptj_spec(const ModelConfig& cfg);
Result<ArchModel> mpt_spec(const ModelConfig& cfg);
Result<ArchModel> stablelm_spec(const ModelConfig& cfg);
Result<ArchModel> olmo_spec(const ModelConfig& cfg);
Result<ArchModel> olmo3_spec(const ModelConfig& cfg);
Result<ArchModel> cohere_spec(const ModelConfig& cfg);
Result<ArchModel> glm4_spec(const ModelConfig& cfg);
Result<ArchModel> exaone_spec(const ModelConfig& cfg);
Result<ArchModel> mamba_spec(const ModelConfig& cfg);
Result<ArchModel> falcon_mamba_spec(const ModelConfig& cfg);
Result<ArchModel> mamba2_spec(const ModelConfig& cfg);
Result<ArchModel> bamba_spec(const ModelConfig& cfg);
Result<ArchModel> falcon_h1_spec(const ModelConfig& cfg);
Result<ArchModel> granitemoehybrid_spec(const ModelConfig& cfg);
Result<ArchModel> t5_spec(const ModelConfig& cfg);
Result<ArchModel> mt5_spec(const ModelConfig& cfg);
Result<ArchModel> umt5_spec(const ModelConfig& cfg);
Result<ArchModel> bart_spec(const ModelConfig& cfg);
Result<ArchModel> mbart_spec(const ModelConfig& cfg);
Result<ArchModel> whisper_spec(const ModelConfig& cfg);

Result<ArchModel> clip_spec(const ModelConfig& cfg);
Result<ArchModel> siglip_spec(const ModelConfig& cfg);
Result<ArchModel> siglip2_spec(const ModelConfig& cfg);
// The towers alone (a pipeline's text_encoder / image_encoder).
Result<ArchModel> clip_text_model_spec(const ModelConfig& cfg);
Result<ArchModel> clip_vision_model_spec(const ModelConfig& cfg);
Result<ArchModel> siglip_vision_model_spec(const ModelConfig& cfg);
Result<ArchModel> llava_spec(const ModelConfig& cfg);
Result<ArchModel> llava_next_spec(const ModelConfig& cfg);
Result<ArchModel> llava_onevision_spec(const ModelConfig& cfg);
Result<ArchModel> mllama_spec(const ModelConfig& cfg);
Result<ArchModel> internvl_spec(const ModelConfig& cfg);
Result<ArchModel> exaone4_spec(const ModelConfig& cfg);
Result<ArchModel> seed_oss_spec(const ModelConfig& cfg);
Result<ArchModel> apertus_spec(const ModelConfig& cfg);
Result<ArchModel> arcee_spec(const ModelConfig& cfg);
Result<ArchModel> ernie4_5_spec(const ModelConfig& cfg);
Result<ArchModel> hunyuan_v1_dense_spec(const ModelConfig& cfg);
Result<ArchModel> hunyuan_v1_moe_spec(const ModelConfig& cfg);
Result<ArchModel> deepseek_spec(const ModelConfig& cfg);
Result<ArchModel> minimax_spec(const ModelConfig& cfg);
Result<ArchModel> minimax_text_01_spec(const ModelConfig& cfg);

Result<ArchModel> zamba2_spec(const ModelConfig& cfg);

Result<ArchModel> paligemma_spec(const ModelConfig& cfg);
Result<ArchModel> idefics3_spec(const ModelConfig& cfg);
Result<ArchModel> smolvlm_spec(const ModelConfig& cfg);

}  // namespace hfi::arch
