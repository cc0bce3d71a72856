// EXAONE 4.0 (LG AI Research, exaone4): Llama's tensor names with OLMo 2's norm placement. There is
// no norm before a sublayer: post_attention_layernorm and post_feedforward_layernorm normalise the
// attention and MLP outputs before the residual add. q_norm / k_norm are per-head RMSNorms
// [head_dim] (Qwen3 style, unlike OLMo 2's full-width ones), so add_gqa_attention's qk_norm covers
// them. The 32B model interleaves sliding-window layers with global ones 3:1 and drops RoPE on the
// global layers; the 1.2B model is global attention with RoPE everywhere (sliding_window null).
#include "arch/families/families.hpp"

namespace hfi::arch {
namespace {

// Per-layer kinds. layer_types wins when present (every released config writes it); otherwise
// transformers' Exaone4Config rule: no sliding_window -> all global; an integer pattern n makes
// every n-th layer global; a string of 'L'/'G' repeats over the layers, and the last layer is always
// global.
std::vector<AttentionKind> exaone4_kinds(const ConfigReader& r, uint64_t layers) {
  const ModelConfig& cfg = r.config();
  if (const Json* types = cfg.field({"layer_types"}); types && types->is_array()) return attention_kinds(r, layers);
  std::vector<AttentionKind> kinds(layers, AttentionKind::Full);
  if (r.get({"sliding_window"}, 0) == 0) return kinds;
  const Json* pattern = cfg.field({"sliding_window_pattern"});
  if (!pattern || pattern->is_null()) return kinds;
  if (pattern->is_string()) {
    std::string s = pattern->as_string();
    if (s.empty()) return kinds;
    for (uint64_t i = 0; i + 1 < layers; ++i)
      if (s[i % s.size()] == 'L') kinds[i] = AttentionKind::Sliding;
    return kinds;
  }
  uint64_t every = r.get({"sliding_window_pattern"}, 0);
  if (every == 0) return kinds;
  for (uint64_t i = 0; i < layers; ++i)
    if ((i + 1) % every != 0) kinds[i] = AttentionKind::Sliding;
  return kinds;
}

}  // namespace

Result<ArchModel> exaone4_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "exaone4";
  AttentionDims d = read_attention_dims(r);
  d.qk_norm = true;
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_gqa_attention(m, p + "self_attn.", l, d);
    add(m, p + "post_attention_layernorm.weight", {d.hidden}, Role::Norm, l);
    add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp);
    add(m, p + "post_feedforward_layernorm.weight", {d.hidden}, Role::Norm, l);
  }
  uint64_t window = r.get({"sliding_window"}, 0);
  size_t sliding = 0;
  for (AttentionKind kind : exaone4_kinds(r, layers)) {
    bool local = kind == AttentionKind::Sliding && window > 0;
    sliding += local;
    m.attention.push_back(attention_layer(d, local ? AttentionKind::Sliding : AttentionKind::Full, local ? window : 0));
  }
  m.attention_summary = describe_attention(d);
  m.position_summary = describe_rope(r);
  // The reference code rotates q and k only on sliding layers once a window is configured.
  if (window > 0) m.position_summary += "; global layers use no positions (NoPE)";
  m.norm_summary = "RMSNorm on each sublayer's output (post-attention, post-feedforward), none before";
  m.activation_summary = describe_activation(r, true);
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)" +
                    (sliding ? ", " + std::to_string(sliding) + " sliding-window layers of " + std::to_string(window) +
                                   " tokens, " + std::to_string(layers - sliding) + " global"
                             : "");
  return m;
}

}  // namespace hfi::arch
