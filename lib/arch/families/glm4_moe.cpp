// GLM-4.5 / 4.6 (glm4_moe): GQA attention with q/k/v biases and optional per-head QK-norm, RoPE on
// only part of each head (partial_rotary_factor), the first first_k_dense_replace layers dense and
// the rest DeepSeek-V3-style MoE (sigmoid router whose e_score_correction_bias only steers
// selection, routed experts plus shared experts), and num_nextn_predict_layers multi-token-
// prediction layers stored after the main stack as model.layers.<num_hidden_layers + k>: a whole
// decoder layer plus its own embedding, enorm/hnorm, eh_proj and shared_head (norm + head).
#include <cstdio>

#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> glm4_moe_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "glm4_moe";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = r.flag({"attention_bias"}, false);  // o_proj never has a bias
  d.qk_norm = r.flag({"use_qk_norm"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t experts = r.need({"n_routed_experts"});
  uint64_t top_k = r.need({"num_experts_per_tok"});
  uint64_t moe_inter = r.need({"moe_intermediate_size"});
  uint64_t shared = r.get({"n_shared_experts"}, 0);
  uint64_t first_dense = r.get({"first_k_dense_replace"}, 0);
  uint64_t mtp_layers = r.get({"num_nextn_predict_layers"}, 0);
  double rotary = r.number({"partial_rotary_factor"}, 0.5);
  uint64_t vocab = r.need({"vocab_size"});
  add_embeddings(m, vocab, d.hidden, r.flag({"tie_word_embeddings"}, false));

  auto add_layer = [&](uint64_t i, bool mtp) {
    size_t start = m.tensors.size();
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_attention_sublayer(m, p, l, d);
    if (i < first_dense) {
      add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp);
    } else {
      add(m, p + "mlp.gate.weight", {experts, d.hidden}, Role::Router, l);
      add(m, p + "mlp.gate.e_score_correction_bias", {experts}, Role::RoutingBias, l);
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

  finish_llama_like(m, r, layers, d);
  char share[32];
  std::snprintf(share, sizeof share, "%g%%", rotary * 100);
  m.position_summary += std::string(", rotary on ") + share + " of each head";
  uint64_t moe_layers = layers > first_dense ? layers - first_dense : 0;
  m.layer_summary = std::to_string(layers) + " layers: " + std::to_string(layers - moe_layers) + " dense + " +
                    std::to_string(moe_layers) + " MoE (" + std::to_string(experts) + " routed top-" +
                    std::to_string(top_k) + " + " + std::to_string(shared) +
                    " shared, sigmoid router with selection bias)" +
                    (mtp_layers ? ", " + std::to_string(mtp_layers) + " MTP layer(s)" : "");
  return m;
}

}  // namespace hfi::arch
