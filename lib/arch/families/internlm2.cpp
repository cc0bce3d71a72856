// Shanghai AI Lab InternLM2 / InternLM2.5 (remote code, InternLM2ForCausalLM): a Llama-style GQA
// decoder with its own tensor names. Queries, keys and values come from one fused projection
// attention.wqkv of (heads + 2 * kv_heads) * head_dim rows (grouped per KV head: the q heads of a
// group, then its k and v), the output projection is attention.wo, the SwiGLU MLP is
// feed_forward.w1 (gate) / w3 (up) / w2 (down), the norms are attention_norm / ffn_norm, the
// embedding is model.tok_embeddings and the head a root-level output.weight. `bias` puts biases on
// wqkv and wo only.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> internlm2_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "internlm2";
  m.prefix_anchor = "tok_embeddings.weight";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = d.o_bias = r.flag({"bias"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t vocab = r.need({"vocab_size"});
  bool tied = r.flag({"tie_word_embeddings"}, false);
  add(m, "model.tok_embeddings.weight", {vocab, d.hidden}, Role::Embedding);
  add(m, "model.norm.weight", {d.hidden}, Role::Norm);
  add_lm_head(m, "output", vocab, d.hidden, tied);
  uint64_t qkv = (d.heads + 2 * d.kv_heads) * d.head_dim;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add(m, p + "attention_norm.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "ffn_norm.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "attention.wqkv.weight", {qkv, d.hidden}, Role::Attention, l);
    add(m, p + "attention.wo.weight", {d.hidden, d.heads * d.head_dim}, Role::Attention, l);
    if (d.qkv_bias) {
      add(m, p + "attention.wqkv.bias", {qkv}, Role::Attention, l);
      add(m, p + "attention.wo.bias", {d.hidden}, Role::Attention, l);
    }
    add(m, p + "feed_forward.w1.weight", {inter, d.hidden}, Role::Mlp, l);  // gate
    add(m, p + "feed_forward.w3.weight", {inter, d.hidden}, Role::Mlp, l);  // up
    add(m, p + "feed_forward.w2.weight", {d.hidden, inter}, Role::Mlp, l);  // down
  }
  finish_llama_like(m, r, layers, d);
  m.attention_summary = describe_attention(d) + ", fused wqkv";
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  // Which attention kernel the remote code should use; no tensors, same arithmetic.
  m.structure_irrelevant_fields = {"attn_implementation"};
  return m;
}

}  // namespace hfi::arch
