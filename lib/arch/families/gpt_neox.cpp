// GPT-NeoX (EleutherAI's GPT-NeoX-20B and the Pythia suite): what sets it apart from Llama-like
// decoders is one fused query_key_value projection laid out per head ([q_h, k_h, v_h] for each head
// h) with a bias, an attention output called "dense", a two-matrix GELU MLP (dense_h_to_4h /
// dense_4h_to_h, always with biases), LayerNorms with bias, rotary embeddings on only a fraction of
// each head (rotary_pct, 0.25 by default), an input embedding named embed_in and an untied head
// named embed_out that sits outside the "gpt_neox." stack. use_parallel_residual feeds attention and
// MLP from the same residual stream; it changes the data flow, not the tensors (both LayerNorms exist
// either way).
//
// Checkpoints written by transformers before the causal mask became a non-persistent buffer (all
// Pythia uploads) also store, per layer, attention.bias (the [1, 1, P, P] lower-triangular mask, U8
// or BOOL), attention.masked_bias (a rank-0 fill value) and attention.rotary_emb.inv_freq
// (rotary_dims / 2 frequencies). They are optional tensors of role Buffer: in the stored total as the
// Hub counts it (the rank-0 scalar as 0), never active.
#include <cstdio>

#include "arch/families/families.hpp"

namespace hfi::arch {

namespace {

// rotary_pct (original name), partial_rotary_factor, or rope_parameters.partial_rotary_factor
// (transformers 5 folds both rotary fields into rope_parameters).
double rotary_fraction(const ConfigReader& r) {
  if (const Json* f = r.field({"rotary_pct", "partial_rotary_factor"}); f && f->is_number()) return f->as_double().value_or(0.25);
  if (const Json* p = r.field({"rope_parameters", "rope_scaling"}); p && p->is_object())
    if (const Json* f = p->find("partial_rotary_factor"); f && f->is_number()) return f->as_double().value_or(0.25);
  return 0.25;
}

}  // namespace

Result<ArchModel> gpt_neox_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "gpt_neox";
  m.prefix_anchor = "embed_in.weight";
  AttentionDims d;
  d.hidden = r.need({"hidden_size"});
  d.heads = r.need({"num_attention_heads"});
  d.kv_heads = d.heads;
  d.head_dim = d.hidden / d.heads;
  if (d.head_dim == 0 || d.head_dim * d.heads != d.hidden)
    throw SpecError("config.json: hidden_size is not a multiple of num_attention_heads");
  bool bias = r.flag({"attention_bias"}, true);
  d.qkv_bias = d.o_bias = bias;
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t vocab = r.need({"vocab_size"});
  uint64_t positions = r.get({"max_position_embeddings"}, 2048);
  bool parallel = r.flag({"use_parallel_residual"}, true);
  bool tied = r.flag({"tie_word_embeddings"}, false);
  double fraction = rotary_fraction(r);
  uint64_t rotary_dims = static_cast<uint64_t>(static_cast<double>(d.head_dim) * fraction);
  double theta = r.number({"rotary_emb_base", "rope_theta"}, 0);
  if (theta == 0)
    if (const Json* p = r.field({"rope_parameters"}); p && p->is_object())
      if (const Json* t = p->find("rope_theta"); t && t->is_number()) theta = t->as_double().value_or(0);
  if (theta == 0) theta = 10000;

  add(m, "model.embed_in.weight", {vocab, d.hidden}, Role::Embedding);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_layernorm(m, p + "input_layernorm", d.hidden, l);
    add_layernorm(m, p + "post_attention_layernorm", d.hidden, l);
    add_linear(m, p + "attention.query_key_value", 3 * d.hidden, d.hidden, Role::Attention, l, bias);
    add_linear(m, p + "attention.dense", d.hidden, d.hidden, Role::Attention, l, bias);
    add_linear(m, p + "mlp.dense_h_to_4h", inter, d.hidden, Role::Mlp, l, true);
    add_linear(m, p + "mlp.dense_4h_to_h", d.hidden, inter, Role::Mlp, l, true);
    add_optional_buffer(m, p + "attention.bias", {1, 1, positions, positions}, l);
    add_optional_buffer(m, p + "attention.masked_bias", {}, l);
    add_optional_buffer(m, p + "attention.rotary_emb.inv_freq", {(rotary_dims + 1) / 2}, l);
  }
  add_layernorm(m, "model.final_layer_norm", d.hidden, -1);
  // embed_out is a sibling of the gpt_neox. stack, not under it: written without the model. prefix
  // so reconcile leaves it at the root.
  add_lm_head(m, "embed_out", vocab, d.hidden, tied);
  for (uint64_t i = 0; i < layers; ++i) m.attention.push_back(attention_layer(d));

  m.attention_summary = describe_attention(d) + ", fused query_key_value (per head q,k,v)" + (bias ? ", dense bias" : "");
  m.position_summary = "RoPE θ=" + format_number(theta) + " on " + std::to_string(rotary_dims) + " of " +
                       std::to_string(d.head_dim) + " head dims (rotary_pct " + format_number(fraction) + ")";
  m.norm_summary = "LayerNorm with bias";
  m.activation_summary = describe_activation(r, false, "gelu") + " (dense_h_to_4h/dense_4h_to_h)";
  m.layer_summary = std::to_string(layers) + " × (" + (parallel ? "parallel residual: " : "") + "attention + dense MLP)";
  m.notes.push_back(
      "older GPT-NeoX files (Pythia) store attention.bias causal masks, a masked_bias scalar and rotary inv_freq per "
      "layer; they are counted as stored tensors, not parameters of the network");
  m.structure_irrelevant_fields = {"classifier_dropout", "is_decoder"};
  return m;
}

}  // namespace hfi::arch
