// Cohere Command R7B / Tiny Aya (cohere2). One LayerNorm per layer (scale only, no bias) feeds
// attention and the gated MLP in parallel, and both outputs are added to the residual: there is no
// post_attention_layernorm. Layers alternate sliding-window attention with RoPE and full attention
// with no positional encoding at all (3 sliding : 1 full in the released models), the head is tied
// to the embedding, and the logits are multiplied by logit_scale (a number, not a tensor).
//
// Command R / R+ (cohere) is the same parallel block with RoPE on every layer and no sliding
// window; use_qk_norm (Command R+) adds bias-free LayerNorms on q and k, one row per head
// (q_norm.weight [heads, head_dim], k_norm.weight [kv_heads, head_dim]).
#include <cstdio>

#include "arch/families/families.hpp"

namespace hfi::arch {

namespace {

// One Cohere layer: the shared input LayerNorm (weight only), q/k/v/o and the gated MLP; with
// qk_norm the per-head q/k LayerNorm weights. cohere2's layers are this with qk_norm false.
void add_cohere_layer(ArchModel& m, const std::string& p, int l, const AttentionDims& d, uint64_t inter, bool qk_norm) {
  add(m, p + "input_layernorm.weight", {d.hidden}, Role::Norm, l);
  add_gqa_attention(m, p + "self_attn.", l, d);
  if (qk_norm) {
    add(m, p + "self_attn.q_norm.weight", {d.heads, d.head_dim}, Role::Attention, l);
    add(m, p + "self_attn.k_norm.weight", {d.kv_heads, d.head_dim}, Role::Attention, l);
  }
  add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp);
}

}  // namespace

Result<ArchModel> cohere_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "cohere";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = d.o_bias = r.flag({"attention_bias"}, false);
  bool qk_norm = r.flag({"use_qk_norm"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  // Tied unless the config says otherwise (CohereConfig's default, and Cohere's own key).
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings", "use_embedding_sharing"}, true));
  for (uint64_t i = 0; i < layers; ++i)
    add_cohere_layer(m, "model.layers." + std::to_string(i) + ".", static_cast<int>(i), d, inter, qk_norm);
  add_attention_layers(m, r, layers, d);
  m.attention_summary = describe_attention(d) + (qk_norm ? ", per-head q/k LayerNorm" : "");
  m.position_summary = describe_rope(r) + ", interleaved (GPT-J) pairs";
  m.norm_summary = "LayerNorm without bias, one per layer, shared by the parallel attention and MLP";
  m.activation_summary = describe_activation(r, true);
  m.layer_summary = std::to_string(layers) + " × parallel (attention + dense MLP); logits × " +
                    format_number(r.number({"logit_scale"}, 0.0625));
  m.structure_irrelevant_fields = {"use_parallel_block", "use_gated_activation", "rotary_pct", "use_parallel_embedding",
                                   "layer_norm_eps"};
  return m;
}

Result<ArchModel> cohere2_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "cohere2";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = d.o_bias = r.flag({"attention_bias"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  // Cohere's own key for tying is use_embedding_sharing; transformers defaults to tied.
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings", "use_embedding_sharing"}, true));
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add(m, p + "input_layernorm.weight", {d.hidden}, Role::Norm, l);
    add_gqa_attention(m, p + "self_attn.", l, d);
    add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp);
  }

  // Layer kinds: layer_types when present; older configs give only sliding_window_pattern, where
  // every pattern-th layer (1-based) is full and the others slide.
  uint64_t window = r.need({"sliding_window"});
  std::vector<AttentionKind> kinds;
  if (const Json* types = cfg.field({"layer_types"}); types && types->is_array()) {
    kinds = attention_kinds(r, layers);
  } else {
    uint64_t pattern = r.get({"sliding_window_pattern", "_sliding_window_pattern"}, 4);
    for (uint64_t i = 0; i < layers; ++i)
      kinds.push_back(pattern > 0 && (i + 1) % pattern == 0 ? AttentionKind::Full : AttentionKind::Sliding);
  }
  size_t sliding = 0;
  for (auto kind : kinds) {
    m.attention.push_back(attention_layer(d, kind, kind == AttentionKind::Sliding ? window : 0));
    sliding += kind == AttentionKind::Sliding;
  }

  m.attention_summary = describe_attention(d);
  std::string rope = describe_rope(r);
  if (r.config().string({"position_embedding_type"}).value_or("") == "rope_gptj") rope += ", interleaved (GPT-J) pairs";
  m.position_summary = rope + ", on sliding layers only; full layers use no position encoding";
  m.norm_summary = "LayerNorm without bias, one per layer, shared by the parallel attention and MLP";
  m.activation_summary = describe_activation(r, true);
  char scale[32];
  std::snprintf(scale, sizeof scale, "%g", r.number({"logit_scale"}, 0.0625));
  m.layer_summary = std::to_string(layers) + " × parallel (attention + dense MLP): " + std::to_string(sliding) +
                    " sliding-window (" + std::to_string(window) + " tokens) + " +
                    std::to_string(layers - sliding) + " full; logits × " + scale;
  // Keys from Cohere's original configs. transformers builds the same parallel, gated, full-rotary
  // graph whatever they say, and the cache and interleave hints are runtime choices.
  m.structure_irrelevant_fields = {"use_parallel_block", "use_gated_activation", "rotary_pct",
                                   "use_parallel_embedding", "cache_implementation", "layer_switch",
                                   "order_of_interleaved_layers", "sliding_window_pattern",
                                   "_sliding_window_pattern"};
  return m;
}

}  // namespace hfi::arch
