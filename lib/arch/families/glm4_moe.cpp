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
      add_deepseek_moe(m, p + "mlp.", l, d.hidden, moe_inter, experts, top_k, shared, true);
    }
    if (mtp) add_mtp_glue(m, p, l, vocab, d.hidden, start);
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
