// THUDM ChatGLM2/3 and GLM-4-9B chat (remote code, ChatGLMForConditionalGeneration, model_type
// "chatglm"). Everything sits under "transformer.": embedding.word_embeddings, encoder.layers.N
// (input_layernorm, self_attention.query_key_value fused q/k/v with multi_query_group_num KV
// groups, self_attention.dense, post_attention_layernorm, mlp.dense_h_to_4h producing both SwiGLU
// halves, mlp.dense_4h_to_h), encoder.final_layernorm (post_layer_norm), output_layer (untied head)
// and one rotary_pos_emb.inv_freq buffer (kv_channels / 4 values, stored by these checkpoints).
// add_bias_linear biases every linear layer, add_qkv_bias only query_key_value; rmsnorm picks
// RMSNorm over LayerNorm (which has a bias). Vocabulary tensors use padded_vocab_size.
#include <cstdio>

#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> chatglm_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "chatglm";
  m.prefix_anchor = "embedding.word_embeddings.weight";
  AttentionDims d;
  d.hidden = r.need({"hidden_size"});
  d.heads = r.need({"num_attention_heads"});
  d.head_dim = r.get({"kv_channels"}, d.hidden / d.heads);
  bool mqa = r.flag({"multi_query_attention"}, false);
  d.kv_heads = mqa ? r.need({"multi_query_group_num"}) : d.heads;
  if (!mqa) (void)r.get({"multi_query_group_num"}, 0);
  bool linear_bias = r.flag({"add_bias_linear"}, false);
  d.qkv_bias = linear_bias || r.flag({"add_qkv_bias"}, false);
  d.o_bias = linear_bias;
  bool rms = r.flag({"rmsnorm"}, true);
  bool final_norm = r.flag({"post_layer_norm"}, true);
  uint64_t layers = r.need({"num_layers", "num_hidden_layers"});
  (void)r.get({"num_hidden_layers"}, layers);
  uint64_t ffn = r.need({"ffn_hidden_size"});
  uint64_t vocab = r.need({"padded_vocab_size", "vocab_size"});
  (void)r.get({"vocab_size"}, vocab);
  uint64_t projection = d.heads * d.head_dim;
  uint64_t qkv = projection + 2 * d.kv_heads * d.head_dim;

  auto norm = [&](const std::string& p, int layer) { add_layernorm(m, p, d.hidden, layer, !rms); };
  add(m, "model.embedding.word_embeddings.weight", {vocab, d.hidden}, Role::Embedding);
  if (final_norm) norm("model.encoder.final_layernorm", -1);
  add(m, "model.output_layer.weight", {vocab, d.hidden}, Role::LmHead);
  bool tied = r.flag({"tie_word_embeddings"}, false);
  m.tensors.back().optional = tied;
  m.tied_embeddings = tied;
  m.vocab_size = vocab;
  m.hidden_size = d.hidden;
  // RotaryEmbedding(rotary_dim // 2) keeps inv_freq of rotary_dim / 4 values: a buffer, not a
  // parameter, that these checkpoints store.
  add(m, "model.rotary_pos_emb.inv_freq", {d.head_dim / 4}, Role::Other);
  m.tensors.back().optional = true;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.encoder.layers." + std::to_string(i) + ".";
    norm(p + "input_layernorm", l);
    norm(p + "post_attention_layernorm", l);
    add_linear(m, p + "self_attention.query_key_value", qkv, d.hidden, Role::Attention, l, d.qkv_bias);
    add_linear(m, p + "self_attention.dense", d.hidden, projection, Role::Attention, l, d.o_bias);
    add_linear(m, p + "mlp.dense_h_to_4h", 2 * ffn, d.hidden, Role::Mlp, l, linear_bias);  // gate and up halves
    add_linear(m, p + "mlp.dense_4h_to_h", d.hidden, ffn, Role::Mlp, l, linear_bias);
  }
  add_attention_layers(m, r, layers, d);
  m.attention_summary = describe_attention(d) + ", fused query_key_value";
  double ratio = r.number({"rope_ratio"}, 1.0);
  char buf[96];
  std::snprintf(buf, sizeof buf, "RoPE on half of each head, θ=%g", 10000.0 * ratio);
  m.position_summary = buf;
  if (auto ctx = cfg.integer({"seq_length"})) m.position_summary += ", " + std::to_string(*ctx) + " positions";
  m.norm_summary = rms ? "RMSNorm" : "LayerNorm";
  m.activation_summary = "silu (gated: SwiGLU, fused dense_h_to_4h)";
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  // Numerics and kernel switches of the remote code, the RoPE implementation choice and the
  // residual source: no tensors, the same arithmetic per token.
  m.structure_irrelevant_fields = {"apply_query_key_layer_scaling", "apply_residual_connection_post_layernorm",
                                   "attention_softmax_in_fp32", "bias_dropout_fusion", "classifier_dropout",
                                   "fp32_residual_connection", "layernorm_epsilon", "original_rope"};
  return m;
}

}  // namespace hfi::arch
