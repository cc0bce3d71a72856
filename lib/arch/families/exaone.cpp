// LG AI Research's EXAONE 3.0 / 3.5 (ExaoneForCausalLM, remote code). A Llama graph (pre-RMSNorm,
// GQA with RoPE, SwiGLU, no biases) stored under GPT-2-style names: transformer.wte,
// transformer.h.N.ln_1 / ln_2, attention under attn.attention.{q,k,v,out}_proj, the MLP as
// mlp.c_fc_0 (gate), mlp.c_fc_1 (up) and mlp.c_proj (down), transformer.ln_f, lm_head (tied in the
// 2.4B release, stored in the 7.8B and 32B ones). Shapes and the attention layout are Llama's, so
// the summaries come from finish_llama_like.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> exaone_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "exaone";
  m.prefix_anchor = "wte.weight";
  AttentionDims d = read_attention_dims(r);
  uint64_t layers = r.need({"num_layers", "num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t vocab = r.need({"vocab_size"});
  bool tied = r.flag({"tie_word_embeddings"}, true);
  uint64_t q = d.heads * d.head_dim, kv = d.kv_heads * d.head_dim;

  reserve_layers(m, layers, 9);
  add(m, "model.wte.weight", {vocab, d.hidden}, Role::Embedding);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.h." + std::to_string(i) + ".";
    add(m, p + "ln_1.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "attn.attention.q_proj.weight", {q, d.hidden}, Role::Attention, l);
    add(m, p + "attn.attention.k_proj.weight", {kv, d.hidden}, Role::Attention, l);
    add(m, p + "attn.attention.v_proj.weight", {kv, d.hidden}, Role::Attention, l);
    add(m, p + "attn.attention.out_proj.weight", {d.hidden, q}, Role::Attention, l);
    add(m, p + "ln_2.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "mlp.c_fc_0.weight", {inter, d.hidden}, Role::Mlp, l);  // gate
    add(m, p + "mlp.c_fc_1.weight", {inter, d.hidden}, Role::Mlp, l);  // up
    add(m, p + "mlp.c_proj.weight", {d.hidden, inter}, Role::Mlp, l);  // down
  }
  add(m, "model.ln_f.weight", {d.hidden}, Role::Norm);
  add_lm_head(m, "lm_head", vocab, d.hidden, tied);
  finish_llama_like(m, r, layers, d);
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  m.structure_irrelevant_fields = {"embed_dropout", "layer_norm_epsilon"};
  return m;
}

}  // namespace hfi::arch
