// MosaicML MPT (mosaicml/mpt-7b, -30b and their fine-tunes; transformers' MptForCausalLM and the
// llm-foundry remote code store the same names). transformer.wte, then per block norm_1, one fused
// attn.Wqkv, attn.out_proj, norm_2 and a two-matrix ffn.up_proj / ffn.down_proj (expansion_ratio x
// d_model, or ffn_config.ffn_hidden_size), then transformer.norm_f. no_bias (true in the released
// models) removes every bias, the LayerNorms' included. Positions come from ALiBi
// (attn_config.alibi), so no position table is stored; a config without ALiBi has a learned wpe.
// The head is tied to wte (no lm_head stored) unless tie_word_embeddings is false. llm-foundry's
// later options change the shapes too and are read here: grouped-query attention
// (attn_config.kv_n_heads, Wqkv of d_model + 2 x kv_n_heads x head_dim rows), per-width q/k
// LayerNorms (attn_config.qk_ln) and a gated MLP (ffn_config.ffn_type "mptglu": gate_proj beside
// up_proj).
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> mpt_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "mpt";
  m.prefix_anchor = "wte.weight";
  AttentionDims d;
  d.hidden = r.need({"d_model", "hidden_size"});
  d.heads = r.need({"n_heads", "num_attention_heads"});
  d.head_dim = d.hidden / d.heads;
  if (d.head_dim == 0 || d.head_dim * d.heads != d.hidden) throw SpecError("config.json: d_model is not a multiple of n_heads");
  uint64_t layers = r.need({"n_layers", "num_hidden_layers"});
  uint64_t vocab = r.need({"vocab_size"});
  uint64_t positions = r.get({"max_seq_len", "max_position_embeddings"}, 2048);
  bool bias = !r.flag({"no_bias"}, true);
  bool tied = r.flag({"tie_word_embeddings"}, true);

  // attn_config and ffn_config are nested objects; transformers' MptConfig fills the same defaults.
  bool alibi = true, qk_ln = false;
  d.kv_heads = d.heads;
  (void)cfg.field({"attn_config"});  // marks both objects as read: their members are read below
  (void)cfg.field({"ffn_config"});
  if (r.has_section("attn_config")) {
    ConfigReader a = r.section("attn_config");
    alibi = a.flag({"alibi"}, true);
    qk_ln = a.flag({"qk_ln"}, false);
    d.kv_heads = a.get({"kv_n_heads"}, d.heads);
    std::string type = a.field({"attn_type"}) && a.field({"attn_type"})->is_string() ? a.field({"attn_type"})->as_string() : "";
    if (type == "multiquery_attention") d.kv_heads = 1;
    else if (type == "multihead_attention") d.kv_heads = d.heads;
  }
  uint64_t inter = checked_product("expansion_ratio x d_model", {r.get({"expansion_ratio"}, 4), d.hidden});
  bool gated = false;
  if (r.has_section("ffn_config")) {
    ConfigReader f = r.section("ffn_config");
    inter = f.get({"ffn_hidden_size"}, inter);
    const Json* type = f.field({"ffn_type"});
    gated = type && type->is_string() && type->as_string() == "mptglu";
  }
  bool learned_positions = !alibi && r.flag({"learned_pos_emb"}, true);
  d.qkv_bias = d.o_bias = bias;
  d.qk_norm = false;

  reserve_layers(m, layers, 16);
  add(m, "model.wte.weight", {vocab, d.hidden}, Role::Embedding);
  if (learned_positions) add(m, "model.wpe.weight", {positions, d.hidden}, Role::Embedding);
  uint64_t kv = d.kv_heads * d.head_dim;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.blocks." + std::to_string(i) + ".";
    add_layernorm(m, p + "norm_1", d.hidden, l, bias);
    add_linear(m, p + "attn.Wqkv", d.hidden + 2 * kv, d.hidden, Role::Attention, l, bias);
    if (qk_ln) {
      add_layernorm(m, p + "attn.q_ln", d.hidden, l, bias, Role::Attention);
      add_layernorm(m, p + "attn.k_ln", kv, l, bias, Role::Attention);
    }
    add_linear(m, p + "attn.out_proj", d.hidden, d.hidden, Role::Attention, l, bias);
    add_layernorm(m, p + "norm_2", d.hidden, l, bias);
    if (gated) add_linear(m, p + "ffn.gate_proj", inter, d.hidden, Role::Mlp, l, bias);
    add_linear(m, p + "ffn.up_proj", inter, d.hidden, Role::Mlp, l, bias);
    add_linear(m, p + "ffn.down_proj", d.hidden, inter, Role::Mlp, l, bias);
    m.attention.push_back(attention_layer(d));
  }
  add_layernorm(m, "model.norm_f", d.hidden, -1, bias);
  add_lm_head(m, "lm_head", vocab, d.hidden, tied);

  m.attention_summary = describe_attention(d) + ", fused Wqkv" + (qk_ln ? ", q/k LayerNorm" : "") + (bias ? ", biases" : ", no biases");
  m.position_summary = alibi ? "ALiBi (no position table), trained at " + std::to_string(positions) + " tokens"
                             : "learned absolute positions (wpe), " + std::to_string(positions) + " positions";
  std::string norm = r.config().string({"norm_type"}).value_or("low_precision_layernorm");
  m.norm_summary = norm + (bias ? " with bias" : " without bias");
  m.activation_summary = gated ? "gated MLP (gate_proj/up_proj/down_proj)" : "GELU (up_proj/down_proj)";
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  if (const Json* scale = cfg.field({"logit_scale"}); scale && scale->is_number())
    m.layer_summary += "; logits × " + format_number(scale->as_double().value_or(1));
  // Training and kernel choices of llm-foundry's config: none changes a tensor or the cost per token.
  m.structure_irrelevant_fields = {"emb_pdrop", "resid_pdrop", "embedding_fraction", "init_device", "init_config",
                                   "verbose", "use_cache", "learned_pos_emb", "fc_type", "use_pad_tok_in_ffn",
                                   "block_overrides", "final_logit_softcapping", "norm_type"};
  return m;
}

}  // namespace hfi::arch
