// model_type -> spec. Multimodal configs are looked up by their language model's model_type.
#include <array>
#include <string_view>

#include "arch/families/families.hpp"

namespace hfi {
namespace {

Result<ArchModel> run_guarded(Result<ArchModel> (*fn)(const ModelConfig&), const ModelConfig& cfg) {
  try {
    return fn(cfg);
  } catch (const arch::SpecError& e) {
    // The error names the file already; the spec's messages start with it too.
    std::string_view message = e.what();
    if (message.starts_with("config.json: ")) message.remove_prefix(13);
    return malformed("config.json", "", std::string(message));
  }
}

#define HFI_SPEC(type, fn) \
  SpecEntry { type, #fn, [](const ModelConfig& c) { return run_guarded(&arch::fn, c); } }

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
    HFI_SPEC("gemma", gemma_spec),
    HFI_SPEC("gemma2", gemma2_spec),
    HFI_SPEC("gemma3_text", gemma3_text_spec),
    HFI_SPEC("gemma3", gemma3_spec),
    HFI_SPEC("qwen2_5_vl", qwen2_5_vl_spec),
    HFI_SPEC("qwen3_vl", qwen3_vl_spec),
    HFI_SPEC("qwen3_vl_moe", qwen3_vl_moe_spec),
    HFI_SPEC("olmo2", olmo2_spec),
    HFI_SPEC("olmoe", olmoe_spec),
    HFI_SPEC("granite", granite_spec),
    HFI_SPEC("granitemoe", granitemoe_spec),
    HFI_SPEC("glm4_moe", glm4_moe_spec),
    HFI_SPEC("cohere2", cohere2_spec),
    HFI_SPEC("qwen3_next", qwen3_next_spec),
    HFI_SPEC("lfm2", lfm2_spec),
    HFI_SPEC("nemotron_h", nemotron_h_spec),
    HFI_SPEC("gemma4", gemma4_spec),
    HFI_SPEC("gemma4_text", gemma4_spec),
    HFI_SPEC("gemma3n", gemma3n_spec),
    HFI_SPEC("gemma3n_text", gemma3n_spec),
    HFI_SPEC("llama4", llama4_spec),
    HFI_SPEC("llama4_text", llama4_spec),
    HFI_SPEC("mistral3", mistral3_spec),
    HFI_SPEC("mistral4", mistral4_spec),
    HFI_SPEC("bert", bert_spec),
    HFI_SPEC("roberta", roberta_spec),
    HFI_SPEC("xlm-roberta", xlm_roberta_spec),
    HFI_SPEC("modernbert", modernbert_spec),
    HFI_SPEC("distilbert", distilbert_spec),
    HFI_SPEC("phi3", phi3_spec),
    HFI_SPEC("phi", phi_spec),
    HFI_SPEC("gpt2", gpt2_spec),
    HFI_SPEC("falcon", falcon_spec),
    HFI_SPEC("smollm3", smollm3_spec),
    HFI_SPEC("qwen2_vl", qwen2_vl_spec),
    HFI_SPEC("mimo", mimo_spec),
    HFI_SPEC("qwen3_5_moe_text", qwen3_5_moe_text_spec),
    HFI_SPEC("phimoe", phimoe_spec),
    HFI_SPEC("internlm2", internlm2_spec),
    HFI_SPEC("internvl", internvl_spec),
    HFI_SPEC("PanguEmbedded", pangu_embedded_spec),
    HFI_SPEC("minimax_m1", minimax_m1_spec),
    HFI_SPEC("qwen", qwen_spec),
    HFI_SPEC("bloom", bloom_spec),
    HFI_SPEC("chatglm", chatglm_spec),
    HFI_SPEC("m2m_100", m2m_100_spec),
    HFI_SPEC("gpt_neox", gpt_neox_spec),
    HFI_SPEC("starcoder2", starcoder2_spec),
    HFI_SPEC("jamba", jamba_spec),
    HFI_SPEC("ernie4_5_moe", ernie4_5_moe_spec),
    HFI_SPEC("opt", opt_spec),
    HFI_SPEC("gptj", gptj_spec),
    HFI_SPEC("mpt", mpt_spec),
    HFI_SPEC("stablelm", stablelm_spec),
    HFI_SPEC("olmo", olmo_spec),
    HFI_SPEC("olmo3", olmo3_spec),
    HFI_SPEC("cohere", cohere_spec),
    HFI_SPEC("glm4", glm4_spec),
    HFI_SPEC("exaone", exaone_spec),
    HFI_SPEC("mamba", mamba_spec),
    HFI_SPEC("falcon_mamba", falcon_mamba_spec),
    HFI_SPEC("mamba2", mamba2_spec),
    HFI_SPEC("bamba", bamba_spec),
    HFI_SPEC("falcon_h1", falcon_h1_spec),
    HFI_SPEC("granitemoehybrid", granitemoehybrid_spec),
    HFI_SPEC("zamba2", zamba2_spec),
    HFI_SPEC("t5", t5_spec),
    HFI_SPEC("mt5", mt5_spec),
    HFI_SPEC("umt5", umt5_spec),
    HFI_SPEC("bart", bart_spec),
    HFI_SPEC("mbart", mbart_spec),
    HFI_SPEC("whisper", whisper_spec),
    HFI_SPEC("clip", clip_spec),
    HFI_SPEC("siglip", siglip_spec),
    HFI_SPEC("clip_text_model", clip_text_model_spec),
    HFI_SPEC("clip_vision_model", clip_vision_model_spec),
    HFI_SPEC("siglip_vision_model", siglip_vision_model_spec),
    HFI_SPEC("siglip2", siglip2_spec),
    HFI_SPEC("llava", llava_spec),
    HFI_SPEC("mllama", mllama_spec),
    HFI_SPEC("llava_next", llava_next_spec),
    HFI_SPEC("llava_onevision", llava_onevision_spec),
    HFI_SPEC("paligemma", paligemma_spec),
    HFI_SPEC("idefics3", idefics3_spec),
    HFI_SPEC("smolvlm", smolvlm_spec),
    HFI_SPEC("exaone4", exaone4_spec),
    HFI_SPEC("seed_oss", seed_oss_spec),
    HFI_SPEC("apertus", apertus_spec),
    HFI_SPEC("arcee", arcee_spec),
    HFI_SPEC("ernie4_5", ernie4_5_spec),
    HFI_SPEC("hunyuan_v1_dense", hunyuan_v1_dense_spec),
    HFI_SPEC("hunyuan_v1_moe", hunyuan_v1_moe_spec),
    HFI_SPEC("deepseek", deepseek_spec),
    HFI_SPEC("minimax", minimax_spec),
    HFI_SPEC("minimax_text_01", minimax_text_01_spec),
};

#undef HFI_SPEC

}  // namespace

const SpecEntry* find_spec(const std::string& model_type) {
  for (const auto& s : kSpecs)
    if (model_type == s.model_type) return &s;
  return nullptr;
}

std::span<const SpecEntry> registered_specs() { return kSpecs; }

std::vector<std::string> supported_model_types() {
  std::vector<std::string> out;
  for (const auto& s : kSpecs) out.emplace_back(s.model_type);
  return out;
}

}  // namespace hfi
