// Qwen (first generation, remote code QWenLMHeadModel, model_type "qwen"): a GPT-2-style naming of
// a Llama-like decoder. Everything sits under "transformer.": wte, h.N.ln_1 / ln_2 (RMSNorm),
// h.N.attn.c_attn (fused q/k/v, always biased) and attn.c_proj, h.N.mlp.w1 / w2 (the two SwiGLU
// inputs) and mlp.c_proj, then ln_f; the head is an untied lm_head. Multi-head attention of
// kv_channels per head; the MLP is intermediate_size / 2 wide; no_bias drops the biases of the two
// c_proj projections (w1 and w2 never have one in the released models; they follow no_bias too).
#include <cstdio>

#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> qwen_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "qwen";
  m.prefix_anchor = "wte.weight";
  AttentionDims d;
  d.hidden = r.need({"hidden_size"});
  d.heads = r.need({"num_attention_heads"});
  d.kv_heads = d.heads;
  d.head_dim = r.get({"kv_channels"}, d.hidden / d.heads);
  d.qkv_bias = true;
  bool bias = !r.flag({"no_bias"}, true);
  d.o_bias = bias;
  uint64_t projection = d.heads * d.head_dim;
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t ff = r.need({"intermediate_size"}) / 2;
  uint64_t vocab = r.need({"vocab_size", "padded_vocab_size"});
  (void)r.get({"padded_vocab_size"}, vocab);  // the padded size the embedding was built with
  bool tied = r.flag({"tie_word_embeddings"}, false);
  add(m, "model.wte.weight", {vocab, d.hidden}, Role::Embedding);
  add(m, "model.ln_f.weight", {d.hidden}, Role::Norm);
  add_lm_head(m, "lm_head", vocab, d.hidden, tied);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.h." + std::to_string(i) + ".";
    add(m, p + "ln_1.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "ln_2.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "attn.c_attn.weight", {3 * projection, d.hidden}, Role::Attention, l);
    add(m, p + "attn.c_attn.bias", {3 * projection}, Role::Attention, l);
    // Declared as Linear(hidden, projection) in the remote code; the two are equal in every release.
    add(m, p + "attn.c_proj.weight", {projection, d.hidden}, Role::Attention, l);
    if (bias) add(m, p + "attn.c_proj.bias", {projection}, Role::Attention, l);
    add(m, p + "mlp.w1.weight", {ff, d.hidden}, Role::Mlp, l);
    add(m, p + "mlp.w2.weight", {ff, d.hidden}, Role::Mlp, l);
    add(m, p + "mlp.c_proj.weight", {d.hidden, ff}, Role::Mlp, l);
    if (bias) {
      add(m, p + "mlp.w1.bias", {ff}, Role::Mlp, l);
      add(m, p + "mlp.w2.bias", {ff}, Role::Mlp, l);
      add(m, p + "mlp.c_proj.bias", {d.hidden}, Role::Mlp, l);
    }
  }
  add_attention_layers(m, r, layers, d);
  m.attention_summary = describe_attention(d) + ", fused c_attn";

  char buf[64];
  double base = r.number({"rotary_emb_base", "rope_theta"}, 10000);
  (void)r.number({"rope_theta"}, base);
  double pct = r.number({"rotary_pct"}, 1.0);
  std::snprintf(buf, sizeof buf, "RoPE θ=%g", base);
  m.position_summary = buf;
  if (pct < 1.0) {
    std::snprintf(buf, sizeof buf, " on %g of each head", pct);
    m.position_summary += buf;
  }
  if (auto ctx = cfg.integer({"seq_length"})) m.position_summary += ", trained at " + std::to_string(*ctx) + " tokens";
  if (r.flag({"use_dynamic_ntk"}, false)) m.position_summary += ", dynamic NTK beyond it";
  if (r.flag({"use_logn_attn"}, false)) m.position_summary += ", log-n attention scaling";
  m.norm_summary = "RMSNorm";
  m.activation_summary = "silu (gated: SwiGLU, w1 × silu(w2))";
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  // Load-time switches of the remote code (dtype flags, kernels, dropout, tokenizer name): no
  // tensors and the same arithmetic per token.
  m.structure_irrelevant_fields = {"bf16", "fp16", "fp32", "emb_dropout_prob", "attn_dropout_prob",
                                   "scale_attn_weights", "use_flash_attn", "tokenizer_type", "tokenizer_class",
                                   "softmax_in_fp32", "params_dtype", "onnx_safe", "use_cache_kernel",
                                   "layer_norm_epsilon"};
  return m;
}

}  // namespace hfi::arch
