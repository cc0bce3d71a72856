// BigScience BLOOM: a pre-LayerNorm multi-head decoder with ALiBi (no position embeddings or
// rotary), an extra LayerNorm right after the word embeddings, fused and biased
// self_attention.query_key_value, biased dense projections, a plain GELU MLP of 4 × hidden
// (dense_h_to_4h / dense_4h_to_h) and LayerNorms with bias everywhere. The head is tied to the
// word embeddings. The 176B upload keeps its names at the root (h.N..., word_embeddings), smaller
// ones under "transformer.".
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> bloom_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "bloom";
  m.prefix_anchor = "word_embeddings.weight";
  AttentionDims d;
  d.hidden = r.need({"hidden_size", "n_embed"});
  d.heads = r.need({"num_attention_heads", "n_head"});
  d.kv_heads = d.heads;
  d.head_dim = d.hidden / d.heads;
  d.qkv_bias = d.o_bias = true;
  if (d.head_dim * d.heads != d.hidden) throw SpecError("config.json: hidden size is not a multiple of the head count");
  uint64_t layers = r.need({"num_hidden_layers", "n_layer"});
  uint64_t vocab = r.need({"vocab_size"});
  bool tied = r.flag({"tie_word_embeddings"}, true);
  uint64_t ff = 4 * d.hidden;
  add(m, "model.word_embeddings.weight", {vocab, d.hidden}, Role::Embedding);
  add_layernorm(m, "model.word_embeddings_layernorm", d.hidden, -1);
  add_layernorm(m, "model.ln_f", d.hidden, -1);
  add_lm_head(m, "lm_head", vocab, d.hidden, tied);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.h." + std::to_string(i) + ".";
    add_layernorm(m, p + "input_layernorm", d.hidden, l);
    add_layernorm(m, p + "post_attention_layernorm", d.hidden, l);
    add_linear(m, p + "self_attention.query_key_value", 3 * d.hidden, d.hidden, Role::Attention, l);
    add_linear(m, p + "self_attention.dense", d.hidden, d.hidden, Role::Attention, l);
    add_linear(m, p + "mlp.dense_h_to_4h", ff, d.hidden, Role::Mlp, l);
    add_linear(m, p + "mlp.dense_4h_to_h", d.hidden, ff, Role::Mlp, l);
  }
  add_attention_layers(m, r, layers, d);
  m.attention_summary = describe_attention(d) + ", fused query_key_value";
  m.position_summary = "ALiBi (no position embeddings)";
  m.norm_summary = "LayerNorm with bias, plus one on the embeddings";
  m.activation_summary = "gelu (4 × hidden MLP, not gated)";
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  // Kernel and numerics switches of the reference code, and where the residual is taken from
  // (apply_residual_connection_post_layernorm): no tensors, same arithmetic per token.
  m.structure_irrelevant_fields = {"apply_residual_connection_post_layernorm", "attention_softmax_in_fp32",
                                   "masked_softmax_fusion", "slow_but_exact", "layer_norm_epsilon",
                                   "offset_alibi", "skip_bias_add", "skip_bias_add_qkv", "unk_token_id", "seq_length",
                                   "n_inner"};
  return m;
}

}  // namespace hfi::arch
