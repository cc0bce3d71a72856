// Bamba (IBM): a Llama-style decoder (model.embed_tokens, model.final_layernorm, lm_head) whose
// layers are Mamba2 mixers (model.layers.N.mamba.*) except those attn_layer_indices names, which
// hold grouped-query attention with half-width RoPE; every layer has a SwiGLU MLP
// (feed_forward.{gate,up,down}_proj) behind input_layernorm / pre_ff_layernorm.
#include "arch/families/families.hpp"
#include "arch/families/ssm_mixers.hpp"

namespace hfi::arch {
namespace {

// attn_layer_indices as a per-layer flag; every index must name a layer.
std::vector<bool> bamba_attention_layers(const ConfigReader& r, uint64_t layers) {
  std::vector<bool> attn(layers, false);
  const Json* f = r.field({"attn_layer_indices"});
  if (!f || f->is_null()) return attn;
  if (!f->is_array()) throw SpecError("config.json: attn_layer_indices is not a list");
  for (const Json& v : f->items()) {
    auto i = v.as_uint();
    if (!i || *i >= layers) throw SpecError("config.json: attn_layer_indices names a layer that does not exist");
    attn[*i] = true;
  }
  return attn;
}

}  // namespace

Result<ArchModel> bamba_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "bamba";
  AttentionDims a;
  a.hidden = r.get({"hidden_size"}, 4096);
  a.heads = r.get({"num_attention_heads"}, 32);
  a.kv_heads = r.get({"num_key_value_heads"}, 8);
  a.head_dim = r.get({"head_dim"}, a.hidden / a.heads);
  uint64_t layers = r.get({"num_hidden_layers"}, 32);
  uint64_t inter = r.get({"intermediate_size"}, 14336);
  uint64_t vocab = r.get({"vocab_size"}, 128000);
  bool tied = r.flag({"tie_word_embeddings"}, false);

  ssm::Mamba2Dims d;
  d.hidden = a.hidden;
  d.d_inner = checked_product("mamba_expand × hidden_size", {r.get({"mamba_expand"}, 2), a.hidden});
  d.heads = r.get({"mamba_n_heads"}, 128);
  // mamba_d_head is an integer or "auto": the inner width split over the heads.
  const Json* head = r.field({"mamba_d_head"});
  d.head_dim = (!head || head->is_null() || head->is_string()) ? (d.heads ? d.d_inner / d.heads : 0)
                                                                  : r.get({"mamba_d_head"}, 0);
  d.groups = r.get({"mamba_n_groups"}, 1);
  d.state = r.get({"mamba_d_state"}, 256);
  d.kernel = r.get({"mamba_d_conv"}, 4);
  d.conv_bias = r.flag({"mamba_conv_bias"}, true);
  d.proj_bias = r.flag({"mamba_proj_bias"}, false);
  ssm::check_mamba2_heads(d, "bamba");

  auto attn = bamba_attention_layers(r, layers);
  reserve_layers(m, layers, 14);
  add(m, "model.embed_tokens.weight", {vocab, a.hidden}, Role::Embedding);
  uint64_t attn_count = 0;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add(m, p + "input_layernorm.weight", {a.hidden}, Role::Norm, l);
    add(m, p + "pre_ff_layernorm.weight", {a.hidden}, Role::Norm, l);
    if (attn[i]) {
      add_gqa_attention(m, p + "self_attn.", l, a);
      m.attention.push_back(attention_layer(a));
      ++attn_count;
    } else {
      ssm::add_mamba2_mixer(m, p + "mamba.", l, d);
      m.attention.push_back(ssm::mamba2_layer(d));
    }
    add_swiglu(m, p + "feed_forward.", l, a.hidden, inter, Role::Mlp);
  }
  add(m, "model.final_layernorm.weight", {a.hidden}, Role::Norm);
  add_lm_head(m, "lm_head", vocab, a.hidden, tied);

  m.attention_summary = std::to_string(attn_count) + " attention layers (" + describe_attention(a) + ") + " +
                        std::to_string(layers - attn_count) + " Mamba2 layers (" + ssm::describe_mamba2(d) + ")";
  // BambaConfig fixes partial_rotary_factor at 0.5 whatever config.json says.
  m.position_summary = describe_rope(r) + ", partial rotary 0.5 (attention layers only)";
  m.norm_summary = "RMSNorm; gated RMSNorm in Mamba2";
  m.activation_summary = describe_activation(r, true);
  m.layer_summary = std::to_string(layers) + " × (Mamba2 or attention + dense SwiGLU MLP)";
  m.structure_irrelevant_fields = {"mamba_chunk_size", "time_step_min", "time_step_max", "time_step_limit",
                                   "z_loss_coefficient", "num_logits_to_keep", "partial_rotary_factor",
                                   "rms_norm_eps"};
  return m;
}

}  // namespace hfi::arch
