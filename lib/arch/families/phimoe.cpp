// Microsoft PhiMoE (Phi-3.5-MoE, the SlimMoE Phi-mini/Phi-tiny-MoE): Mixtral's expert layout
// (block_sparse_moe.gate + experts.E.w1/w2/w3, top-2 of num_local_experts, SparseMixer routing)
// with LayerNorm (weight and bias) instead of RMSNorm, biases on q/k/v/o (attention_bias), an
// optional lm_head bias (lm_head_bias) and sliding-window attention on every layer when
// sliding_window is set. head_dim may be given apart from hidden_size / heads.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> phimoe_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "phimoe";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = d.o_bias = r.flag({"attention_bias"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t experts = r.need({"num_local_experts"});
  uint64_t top_k = r.need({"num_experts_per_tok"});
  uint64_t inter = r.need({"intermediate_size"});  // per expert
  uint64_t vocab = r.need({"vocab_size"});
  add_embeddings(m, vocab, d.hidden, r.flag({"tie_word_embeddings"}, false));
  add(m, "model.norm.bias", {d.hidden}, Role::Norm);
  if (r.flag({"lm_head_bias"}, false)) add(m, "lm_head.bias", {vocab}, Role::LmHead);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_attention_sublayer(m, p, l, d);
    add(m, p + "input_layernorm.bias", {d.hidden}, Role::Norm, l);
    add(m, p + "post_attention_layernorm.bias", {d.hidden}, Role::Norm, l);
    add_mixtral_moe(m, p + "block_sparse_moe.", l, d.hidden, inter, experts, top_k);
  }
  finish_llama_like(m, r, layers, d);
  m.norm_summary = "LayerNorm (weight and bias)";
  m.layer_summary = std::to_string(layers) + " × MoE (" + std::to_string(experts) + " experts, top-" +
                    std::to_string(top_k) + ", SparseMixer router)" +
                    (r.flag({"lm_head_bias"}, false) ? ", lm_head bias" : "");
  // Training-time noise and dropout on the router and experts; the LongRoPE base length of
  // Phi-3.5-MoE (positions only, no tensors).
  m.structure_irrelevant_fields = {"input_jitter_noise", "expert_dropout", "original_max_position_embeddings"};
  return m;
}

}  // namespace hfi::arch
