// Jamba (AI21): a hybrid decoder whose layers are Mamba (selective SSM, Mamba-1 style) except one
// GQA attention layer every attn_layer_period layers (at attn_layer_offset), and whose feed-forward
// alternates between a dense SwiGLU MLP and a routed MoE (num_experts SwiGLU experts behind a
// softmax router, every expert_layer_period layers at expert_layer_offset). The Mamba mixer
// normalises dt, B and C with RMSNorms, attention has no positional encoding, and the norms are
// named input_layernorm / pre_ff_layernorm / final_layernorm.
#include <cmath>

#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> jamba_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "jamba";
  AttentionDims d;
  d.hidden = r.need({"hidden_size"});
  d.heads = r.need({"num_attention_heads"});
  d.kv_heads = r.get({"num_key_value_heads"}, d.heads);
  d.head_dim = d.hidden / d.heads;  // the attention has no head_dim field of its own
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t experts = r.get({"num_experts"}, 16);
  uint64_t top_k = r.get({"num_experts_per_tok"}, 2);
  uint64_t expert_period = r.get({"expert_layer_period"}, 2);
  uint64_t expert_offset = r.get({"expert_layer_offset"}, 1);
  uint64_t attn_period = r.get({"attn_layer_period"}, 8);
  uint64_t attn_offset = r.get({"attn_layer_offset"}, 4);
  if (expert_period == 0 || attn_period == 0) throw SpecError("config.json: jamba layer periods must be positive");
  uint64_t d_state = r.get({"mamba_d_state"}, 16);
  uint64_t d_conv = r.get({"mamba_d_conv"}, 4);
  uint64_t expand = r.get({"mamba_expand"}, 2);
  // mamba_dt_rank is an integer or "auto" (ceil(hidden_size / 16)).
  uint64_t dt_rank = (d.hidden + 15) / 16;
  if (const Json* f = r.field({"mamba_dt_rank"}); f && !f->is_string()) {
    auto v = f->as_uint();
    if (!v || *v == 0) throw SpecError("config.json: mamba_dt_rank is neither \"auto\" nor a positive integer");
    dt_rank = *v;
  }
  bool conv_bias = r.flag({"mamba_conv_bias"}, true);
  bool proj_bias = r.flag({"mamba_proj_bias"}, false);
  uint64_t d_inner = expand * d.hidden;
  uint64_t vocab = r.need({"vocab_size"});
  uint64_t window = r.get({"sliding_window"}, 0);

  add(m, "model.embed_tokens.weight", {vocab, d.hidden}, Role::Embedding);
  add(m, "model.final_layernorm.weight", {d.hidden}, Role::Norm);
  add_lm_head(m, "lm_head", vocab, d.hidden, r.flag({"tie_word_embeddings"}, false));

  // Per sequence and Mamba layer (vLLM's mamba1 state shape): the depthwise conv of kernel
  // mamba_d_conv keeps its last mamba_d_conv - 1 inputs of d_inner channels, and the SSM state is
  // d_inner × mamba_d_state, with d_inner = mamba_expand * hidden_size.
  const uint64_t ssm_state = checked_product("mamba_expand × hidden_size × mamba_d_state", {d_inner, d_state});
  const uint64_t state = checked_sum("the Mamba state", {checked_product("the conv state", {d_inner, d_conv - 1}), ssm_state});
  uint64_t attn_count = 0, moe_count = 0;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add(m, p + "input_layernorm.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "pre_ff_layernorm.weight", {d.hidden}, Role::Norm, l);
    if (i % attn_period == attn_offset) {
      add_gqa_attention(m, p + "self_attn.", l, d);
      m.attention.push_back(attention_layer(d, window ? AttentionKind::Sliding : AttentionKind::Full, window));
      ++attn_count;
    } else {
      std::string x = p + "mamba.";
      add_linear(m, x + "in_proj", 2 * d_inner, d.hidden, Role::Ssm, l, proj_bias);  // x and the gate z
      add(m, x + "conv1d.weight", {d_inner, 1, d_conv}, Role::Ssm, l);
      if (conv_bias) add(m, x + "conv1d.bias", {d_inner}, Role::Ssm, l);
      add(m, x + "x_proj.weight", {dt_rank + 2 * d_state, d_inner}, Role::Ssm, l);  // dt, B, C
      add_linear(m, x + "dt_proj", d_inner, dt_rank, Role::Ssm, l, true);
      add(m, x + "A_log", {d_inner, d_state}, Role::Ssm, l);
      add(m, x + "D", {d_inner}, Role::Ssm, l);
      add_linear(m, x + "out_proj", d.hidden, d_inner, Role::Ssm, l, proj_bias);
      add(m, x + "dt_layernorm.weight", {dt_rank}, Role::Ssm, l);
      add(m, x + "b_layernorm.weight", {d_state}, Role::Ssm, l);
      add(m, x + "c_layernorm.weight", {d_state}, Role::Ssm, l);
      AttentionLayer a;
      a.kind = AttentionKind::None;
      a.recurrent_state_elements = state;
      a.recurrent_ssm_elements = ssm_state;
      a.recurrent_kind = "mamba";
      m.attention.push_back(a);
    }
    // A layer on the expert grid holds num_experts experts; with one expert it is a plain MLP.
    if (i % expert_period == expert_offset && experts > 1) {
      add(m, p + "feed_forward.router.weight", {experts, d.hidden}, Role::Router, l);
      add_swiglu_experts(m, p + "feed_forward.experts.", l, d.hidden, inter, experts, top_k);
      ++moe_count;
    } else {
      add_swiglu(m, p + "feed_forward.", l, d.hidden, inter, Role::Mlp);
    }
  }

  m.attention_summary = std::to_string(attn_count) + " attention layers (" + describe_attention(d) + ") + " +
                        std::to_string(layers - attn_count) + " Mamba layers (d_inner " + std::to_string(d_inner) +
                        ", state " + std::to_string(d_state) + ", dt rank " + std::to_string(dt_rank) + ", conv " +
                        std::to_string(d_conv) + ")";
  m.position_summary = "no positional encoding (the Mamba layers carry order), max " +
                       std::to_string(r.get({"max_position_embeddings"}, 0)) + " positions";
  m.norm_summary = "RMSNorm; RMSNorm on dt, B and C in Mamba";
  m.activation_summary = describe_activation(r, true);
  m.layer_summary = std::to_string(layers) + " layers: attention every " + std::to_string(attn_period) +
                    " from " + std::to_string(attn_offset) + ", " + std::to_string(moe_count) + " MoE (" +
                    std::to_string(experts) + " experts, top-" + std::to_string(top_k) + ") + " +
                    std::to_string(layers - moe_count) + " dense SwiGLU MLP";
  // Not structural: kernel selection and how many positions the head scores.
  m.structure_irrelevant_fields = {"use_mamba_kernels", "num_logits_to_keep"};
  return m;
}

}  // namespace hfi::arch
