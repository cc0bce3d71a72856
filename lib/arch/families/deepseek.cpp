// DeepSeek-V2/V3 (and the families built on them): multi-head latent attention (MLA) with an
// optional low-rank query path, dense first layers, routed + shared experts, a router that V3
// biases with e_score_correction_bias for selection only, and V3's multi-token-prediction layers.
#include "arch/families/families.hpp"

namespace hfi::arch {
namespace {

struct MlaDims {
  uint64_t hidden, heads, q_lora, kv_lora, nope, rope, v_dim;
};

void add_mla(ArchModel& m, const std::string& p, int layer, const MlaDims& d) {
  uint64_t qk = d.nope + d.rope;
  if (d.q_lora > 0) {
    add(m, p + "q_a_proj.weight", {d.q_lora, d.hidden}, Role::Attention, layer);
    add(m, p + "q_a_layernorm.weight", {d.q_lora}, Role::Attention, layer);
    add(m, p + "q_b_proj.weight", {d.heads * qk, d.q_lora}, Role::Attention, layer);
  } else {
    add(m, p + "q_proj.weight", {d.heads * qk, d.hidden}, Role::Attention, layer);
  }
  add(m, p + "kv_a_proj_with_mqa.weight", {d.kv_lora + d.rope, d.hidden}, Role::Attention, layer);
  add(m, p + "kv_a_layernorm.weight", {d.kv_lora}, Role::Attention, layer);
  add(m, p + "kv_b_proj.weight", {d.heads * (d.nope + d.v_dim), d.kv_lora}, Role::Attention, layer);
  add(m, p + "o_proj.weight", {d.hidden, d.heads * d.v_dim}, Role::Attention, layer);
}

Result<ArchModel> deepseek(const ModelConfig& cfg, const char* family, bool v3) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = family;
  MlaDims d{};
  d.hidden = r.need({"hidden_size"});
  d.heads = r.need({"num_attention_heads"});
  // MLA caches one latent per token, not per-head keys; num_key_value_heads (= heads) is moot.
  (void)r.get({"num_key_value_heads"}, d.heads);
  d.q_lora = r.get({"q_lora_rank"}, 0);
  d.kv_lora = r.need({"kv_lora_rank"});
  d.nope = r.need({"qk_nope_head_dim"});
  d.rope = r.need({"qk_rope_head_dim"});
  d.v_dim = r.need({"v_head_dim"});
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t experts = r.get({"n_routed_experts"}, 0);
  uint64_t top_k = experts ? r.need({"num_experts_per_tok"}) : 0;
  uint64_t moe_inter = experts ? r.need({"moe_intermediate_size"}) : 0;
  uint64_t shared = r.get({"n_shared_experts"}, 0);
  uint64_t first_dense = r.get({"first_k_dense_replace"}, 0);
  uint64_t freq = r.get({"moe_layer_freq"}, 1);
  std::string topk_method = cfg.string({"topk_method"}).value_or(v3 ? "noaux_tc" : "greedy");
  bool correction_bias = topk_method == "noaux_tc";
  uint64_t mtp_layers = v3 ? r.get({"num_nextn_predict_layers"}, 0) : 0;
  uint64_t vocab = r.need({"vocab_size"});
  add_embeddings(m, vocab, d.hidden, r.flag({"tie_word_embeddings"}, false));

  uint64_t moe_layers = 0;
  auto add_layer = [&](uint64_t i, bool mtp) {
    size_t start = m.tensors.size();
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add(m, p + "input_layernorm.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "post_attention_layernorm.weight", {d.hidden}, Role::Norm, l);
    add_mla(m, p + "self_attn.", l, d);
    bool moe = experts > 0 && i >= first_dense && freq > 0 && i % freq == 0;
    if (!moe) {
      add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp);
    } else {
      if (!mtp) ++moe_layers;
      add(m, p + "mlp.gate.weight", {experts, d.hidden}, Role::Router, l);
      if (correction_bias) add(m, p + "mlp.gate.e_score_correction_bias", {experts}, Role::RoutingBias, l);
      size_t first = m.tensors.size();
      for (uint64_t e = 0; e < experts; ++e)
        add_swiglu(m, p + "mlp.experts." + std::to_string(e) + ".", l, d.hidden, moe_inter, Role::RoutedExpert);
      mark_routed(m, first, static_cast<uint32_t>(top_k), static_cast<uint32_t>(experts));
      if (shared > 0) add_swiglu(m, p + "mlp.shared_experts.", l, d.hidden, moe_inter * shared, Role::SharedExpert);
    }
    if (mtp) {
      add(m, p + "embed_tokens.weight", {vocab, d.hidden}, Role::Mtp, l);
      add(m, p + "enorm.weight", {d.hidden}, Role::Mtp, l);
      add(m, p + "hnorm.weight", {d.hidden}, Role::Mtp, l);
      add(m, p + "eh_proj.weight", {d.hidden, 2 * d.hidden}, Role::Mtp, l);
      add(m, p + "shared_head.norm.weight", {d.hidden}, Role::Mtp, l);
      add(m, p + "shared_head.head.weight", {vocab, d.hidden}, Role::Mtp, l);
      for (size_t t = start; t < m.tensors.size(); ++t) m.tensors[t].mtp = true;
    }
  };
  for (uint64_t i = 0; i < layers; ++i) add_layer(i, false);
  for (uint64_t k = 0; k < mtp_layers; ++k) add_layer(layers + k, true);

  for (uint64_t i = 0; i < layers; ++i) {
    AttentionLayer a;
    a.kind = AttentionKind::Mla;
    a.heads = static_cast<uint32_t>(d.heads);
    a.kv_heads = static_cast<uint32_t>(d.heads);
    a.qk_dim = static_cast<uint32_t>(d.nope + d.rope);
    a.v_dim = static_cast<uint32_t>(d.v_dim);
    a.mla_latent = static_cast<uint32_t>(d.kv_lora);
    a.mla_rope = static_cast<uint32_t>(d.rope);
    m.attention.push_back(a);
  }
  m.attention_summary = "MLA " + std::to_string(d.heads) + " heads, kv_lora_rank " + std::to_string(d.kv_lora) +
                        (d.q_lora ? ", q_lora_rank " + std::to_string(d.q_lora) : ", no q LoRA") + ", qk " +
                        std::to_string(d.nope) + "+" + std::to_string(d.rope) + " rope, v " + std::to_string(d.v_dim);
  m.position_summary = describe_rope(r);
  m.norm_summary = "RMSNorm";
  m.activation_summary = describe_activation(r, true);
  std::string scoring = cfg.string({"scoring_func"}).value_or("softmax");
  m.layer_summary = std::to_string(layers) + " layers: " + std::to_string(layers - moe_layers) + " dense + " +
                    std::to_string(moe_layers) + " MoE (" + std::to_string(experts) + " routed top-" +
                    std::to_string(top_k) + " + " + std::to_string(shared) + " shared, " + scoring + " router" +
                    (correction_bias ? " with selection bias" : "") + ")" +
                    (mtp_layers ? ", " + std::to_string(mtp_layers) + " MTP layer(s)" : "");
  return m;
}

}  // namespace

Result<ArchModel> deepseek_v2_spec(const ModelConfig& cfg) { return deepseek(cfg, "deepseek_v2", false); }
Result<ArchModel> deepseek_v3_spec(const ModelConfig& cfg) { return deepseek(cfg, "deepseek_v3", true); }

}  // namespace hfi::arch
