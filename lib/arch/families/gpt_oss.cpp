// gpt-oss: GQA attention with biases and a learned per-head sink logit, alternating sliding and
// full layers, a biased router, and fused expert tensors [E, out, in] (stored as MXFP4 blocks by
// OpenAI; re-saved BF16 copies use [E, in, out]).
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> gpt_oss_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "gpt_oss";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = d.o_bias = r.flag({"attention_bias"}, true);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t experts = r.need({"num_local_experts"});
  uint64_t top_k = r.need({"num_experts_per_tok", "experts_per_token"});
  uint64_t inter = r.need({"intermediate_size"});
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_attention_sublayer(m, p, l, d);
    add(m, p + "self_attn.sinks", {d.heads}, Role::Attention, l);
    add(m, p + "mlp.router.weight", {experts, d.hidden}, Role::Router, l);
    add(m, p + "mlp.router.bias", {experts}, Role::Router, l);
    size_t first = m.tensors.size();
    add(m, p + "mlp.experts.gate_up_proj", {experts, 2 * inter, d.hidden}, Role::RoutedExpert, l);
    m.last_alternatives().shapes = {{experts, d.hidden, 2 * inter}};
    add(m, p + "mlp.experts.gate_up_proj_bias", {experts, 2 * inter}, Role::RoutedExpert, l);
    add(m, p + "mlp.experts.down_proj", {experts, d.hidden, inter}, Role::RoutedExpert, l);
    m.last_alternatives().shapes = {{experts, inter, d.hidden}};
    add(m, p + "mlp.experts.down_proj_bias", {experts, d.hidden}, Role::RoutedExpert, l);
    mark_routed(m, first, static_cast<uint32_t>(top_k), static_cast<uint32_t>(experts));
  }
  finish_llama_like(m, r, layers, d);
  m.attention_summary += ", attention sinks";
  m.activation_summary = "SwiGLU (clamped, limit " + std::to_string(static_cast<int>(r.number({"swiglu_limit"}, 7))) + ")";
  size_t sliding = 0;
  for (const auto& a : m.attention) sliding += a.kind == AttentionKind::Sliding;
  m.layer_summary = std::to_string(layers) + " × MoE (" + std::to_string(experts) + " experts, top-" +
                    std::to_string(top_k) + "), " + std::to_string(sliding) + " sliding-window layers (" +
                    std::to_string(r.get({"sliding_window"}, 0)) + " tokens) + " +
                    std::to_string(layers - sliding) + " full";
  return m;
}

}  // namespace hfi::arch
