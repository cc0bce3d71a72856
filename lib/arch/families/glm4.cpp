// GLM-4 dense (GLM-4-9B-0414, GLM-4-32B-0414, GLM-Z1; transformers' Glm4ForCausalLM). Llama's names
// and pre-norm with two extra RMSNorms per layer on the sublayer outputs (post_self_attn_layernorm
// after attention, post_mlp_layernorm after the MLP), gate and up fused into one mlp.gate_up_proj
// [2 x intermediate, hidden], and biases on q/k/v (attention_bias, true by default) but not on
// o_proj. RoPE turns partial_rotary_factor (0.5) of each head. The attention uses the shared Llama
// block (add_attention_sublayer) and finish_llama_like; only the norms and MLP are GLM's own.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> glm4_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "glm4";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = r.flag({"attention_bias"}, true);
  d.o_bias = false;
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));
  reserve_layers(m, layers, 13);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_attention_sublayer(m, p, l, d);
    add(m, p + "post_self_attn_layernorm.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "mlp.gate_up_proj.weight", {2 * inter, d.hidden}, Role::Mlp, l);
    add(m, p + "mlp.down_proj.weight", {d.hidden, inter}, Role::Mlp, l);
    add(m, p + "post_mlp_layernorm.weight", {d.hidden}, Role::Norm, l);
  }
  finish_llama_like(m, r, layers, d);
  double rotary = r.number({"partial_rotary_factor"}, 0.5);
  if (rotary > 0 && rotary < 1)
    m.position_summary += ", rotary on " + std::to_string(static_cast<uint64_t>(static_cast<double>(d.head_dim) * rotary)) +
                          " of " + std::to_string(d.head_dim) + " head dims";
  m.norm_summary = "RMSNorm before and after each sublayer (input, post_self_attn, post_attention, post_mlp)";
  m.activation_summary += ", fused gate_up_proj";
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  return m;
}

}  // namespace hfi::arch
