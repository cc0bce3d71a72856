// Falcon-H1 (TII): a parallel hybrid. Every layer runs a Mamba2 mixer (model.layers.N.mamba.*)
// and GQA attention (self_attn.*) side by side on the same input_layernorm output and adds both,
// then a SwiGLU MLP (feed_forward.*) behind pre_ff_layernorm; model.embed_tokens,
// model.final_layernorm, lm_head. Each layer therefore caches keys and values and also keeps a
// Mamba2 state. The µP multipliers (embedding, lm_head, attention, SSM, MLP) scale activations and
// add no tensors; the SSM one lives in a non-persistent mup_vector buffer that is not saved.
// The mixer's width is mamba_d_ssm when set, else mamba_expand × hidden_size; its gated RMSNorm
// exists only when mamba_rms_norm is set (otherwise the gate is a plain silu product).
#include "arch/families/families.hpp"
#include "arch/families/ssm_mixers.hpp"

namespace hfi::arch {

Result<ArchModel> falcon_h1_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "falcon_h1";
  AttentionDims a;
  a.hidden = r.get({"hidden_size"}, 4096);
  a.heads = r.get({"num_attention_heads"}, 32);
  a.kv_heads = r.get({"num_key_value_heads"}, 8);
  if (a.heads == 0) throw SpecError("config.json: num_attention_heads is 0");
  a.head_dim = r.get({"head_dim"}, a.hidden / a.heads);
  a.qkv_bias = a.o_bias = r.flag({"attention_bias"}, false);
  uint64_t layers = r.get({"num_hidden_layers"}, 32);
  uint64_t inter = r.get({"intermediate_size"}, 14336);
  uint64_t vocab = r.get({"vocab_size"}, 128000);
  bool tied = r.flag({"tie_word_embeddings"}, false);
  bool mlp_bias = r.flag({"mlp_bias"}, false);

  ssm::Mamba2Dims d;
  d.hidden = a.hidden;
  const Json* d_ssm = r.field({"mamba_d_ssm"});
  if (d_ssm && d_ssm->is_null())
    d.d_inner = checked_product("mamba_expand × hidden_size", {r.get({"mamba_expand"}, 2), a.hidden});
  else
    d.d_inner = r.get({"mamba_d_ssm"}, 1024);
  d.heads = r.get({"mamba_n_heads"}, 128);
  const Json* head = r.field({"mamba_d_head"});
  d.head_dim = (!head || head->is_null() || head->is_string()) ? (d.heads ? d.d_inner / d.heads : 0)
                                                                  : r.get({"mamba_d_head"}, 0);
  d.groups = r.get({"mamba_n_groups"}, 1);
  d.state = r.get({"mamba_d_state"}, 256);
  d.kernel = r.get({"mamba_d_conv"}, 4);
  d.conv_bias = r.flag({"mamba_conv_bias"}, true);
  // in_proj follows mamba_proj_bias; out_proj follows projectors_bias.
  d.proj_bias = false;
  bool in_bias = r.flag({"mamba_proj_bias"}, false);
  bool out_bias = r.flag({"projectors_bias"}, false);
  d.gated_norm = r.flag({"mamba_rms_norm"}, false);
  ssm::check_mamba2_heads(d, "falcon_h1");

  reserve_layers(m, layers, 22);
  add(m, "model.embed_tokens.weight", {vocab, a.hidden}, Role::Embedding);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    std::string x = p + "mamba.";
    add_linear(m, x + "in_proj", d.in_proj_out(), d.hidden, Role::Ssm, l, in_bias);
    add(m, x + "conv1d.weight", {d.conv_dim(), 1, d.kernel}, Role::Ssm, l);
    if (d.conv_bias) add(m, x + "conv1d.bias", {d.conv_dim()}, Role::Ssm, l);
    add(m, x + "dt_bias", {d.heads}, Role::Ssm, l);
    add(m, x + "A_log", {d.heads}, Role::Ssm, l);
    add(m, x + "D", {d.heads}, Role::Ssm, l);
    if (d.gated_norm) add(m, x + "norm.weight", {d.d_inner}, Role::Ssm, l);
    add_linear(m, x + "out_proj", d.hidden, d.d_inner, Role::Ssm, l, out_bias);
    add_gqa_attention(m, p + "self_attn.", l, a);
    add_swiglu(m, p + "feed_forward.", l, a.hidden, inter, Role::Mlp, mlp_bias);
    add(m, p + "input_layernorm.weight", {a.hidden}, Role::Norm, l);
    add(m, p + "pre_ff_layernorm.weight", {a.hidden}, Role::Norm, l);
    // Both caches on the one layer: KV for the attention branch, conv + SSM state for Mamba2.
    AttentionLayer layer = attention_layer(a);
    AttentionLayer state = ssm::mamba2_layer(d);
    layer.recurrent_state_elements = state.recurrent_state_elements;
    layer.recurrent_ssm_elements = state.recurrent_ssm_elements;
    layer.recurrent_kind = state.recurrent_kind;
    m.attention.push_back(layer);
  }
  add(m, "model.final_layernorm.weight", {a.hidden}, Role::Norm);
  add_lm_head(m, "lm_head", vocab, a.hidden, tied);

  m.attention_summary = std::to_string(layers) + " parallel layers: attention (" + describe_attention(a) +
                        ") beside Mamba2 (" + ssm::describe_mamba2(d) + ", d_ssm " + std::to_string(d.d_inner) + ")";
  m.position_summary = describe_rope(r);
  m.norm_summary = std::string("RMSNorm") + (d.gated_norm ? "; gated RMSNorm in Mamba2" : "; Mamba2 gate without norm");
  m.activation_summary = describe_activation(r, true);
  m.layer_summary = std::to_string(layers) + " × (attention ∥ Mamba2 + dense SwiGLU MLP), µP multipliers";
  m.structure_irrelevant_fields = {"mamba_chunk_size", "mamba_norm_before_gate", "time_step_min", "time_step_max",
                                   "time_step_limit", "num_logits_to_keep", "lm_head_multiplier",
                                   "embedding_multiplier", "mlp_multipliers", "key_multiplier",
                                   "attention_out_multiplier", "attention_in_multiplier", "ssm_multipliers",
                                   "ssm_in_multiplier", "ssm_out_multiplier", "mamba_expand", "mamba_use_mlp",
                                   "rms_norm_eps"};
  return m;
}

}  // namespace hfi::arch
