// Stability AI's StableLM (StableLM-3B-4E1T, StableLM 2 1.6B/12B, StableCode): the Llama layout of
// names (model.layers.N.self_attn.{q,k,v,o}_proj, mlp.{gate,up,down}_proj, model.embed_tokens,
// model.norm, lm_head) with LayerNorms that carry a bias, RoPE on partial_rotary_factor of each head
// (0.25 by default) and three options that change the tensors: use_qkv_bias (biases on q/k/v, never
// on o_proj), qk_layernorm (one bias-free LayerNorm per head on q and on k, stored
// q_layernorm.norms.<h>.weight) and use_parallel_residual (attention and MLP read the same
// input_layernorm output, and post_attention_layernorm does not exist). The attention and MLP
// blocks are Llama's: they reuse add_gqa_attention and add_swiglu.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> stablelm_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "stablelm";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = r.flag({"use_qkv_bias"}, false);
  d.o_bias = false;
  bool qk_ln = r.flag({"qk_layernorm"}, false);
  bool parallel = r.flag({"use_parallel_residual"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t vocab = r.need({"vocab_size"});
  bool tied = r.flag({"tie_word_embeddings"}, false);
  double rotary = r.number({"partial_rotary_factor", "rope_pct"}, 0.25);
  if (const Json* p = r.field({"rope_parameters"}); p && p->is_object())
    if (const Json* f = p->find("partial_rotary_factor"); f && f->is_number()) rotary = f->as_double().value_or(rotary);

  reserve_layers(m, layers, 16 + (qk_ln ? d.heads + d.kv_heads : 0));
  add(m, "model.embed_tokens.weight", {vocab, d.hidden}, Role::Embedding);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_layernorm(m, p + "input_layernorm", d.hidden, l);
    if (!parallel) add_layernorm(m, p + "post_attention_layernorm", d.hidden, l);
    add_gqa_attention(m, p + "self_attn.", l, d);
    if (qk_ln) {
      for (uint64_t h = 0; h < d.heads; ++h)
        add(m, p + "self_attn.q_layernorm.norms." + std::to_string(h) + ".weight", {d.head_dim}, Role::Attention, l);
      for (uint64_t h = 0; h < d.kv_heads; ++h)
        add(m, p + "self_attn.k_layernorm.norms." + std::to_string(h) + ".weight", {d.head_dim}, Role::Attention, l);
    }
    add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp);
  }
  add_layernorm(m, "model.norm", d.hidden, -1);
  add_lm_head(m, "lm_head", vocab, d.hidden, tied);
  add_attention_layers(m, r, layers, d);

  m.attention_summary = describe_attention(d) + (qk_ln ? ", per-head q/k LayerNorm" : "");
  m.position_summary = describe_rope(r);
  if (rotary > 0 && rotary < 1)
    m.position_summary += ", rotary on " + std::to_string(static_cast<uint64_t>(static_cast<double>(d.head_dim) * rotary)) +
                          " of " + std::to_string(d.head_dim) + " head dims";
  m.norm_summary = parallel ? "LayerNorm with bias, one per layer shared by the parallel attention and MLP"
                            : "LayerNorm with bias (pre-norm)";
  m.activation_summary = describe_activation(r, true);
  m.layer_summary = std::to_string(layers) + " × (" + (parallel ? "parallel " : "") + "attention + dense MLP)";
  m.structure_irrelevant_fields = {"hidden_dropout", "attention_dropout", "layer_norm_eps", "initializer_range"};
  return m;
}

}  // namespace hfi::arch
