// AllenAI OLMo 2 and OLMoE. OLMo 2 moves the RMSNorms after the sublayers (post_attention_layernorm
// and post_feedforward_layernorm on the sublayer output, no input_layernorm) and normalises q and k
// over the whole projection width rather than per head. OLMoE keeps Llama's pre-norm layout with
// the same full-width QK-norm and replaces every MLP with 64 softmax-routed experts (top-8), with
// no shared expert.
//
// The first OLMo (olmo, OLMo-1B-hf / OLMo-7B-hf) keeps Llama's pre-norm graph but its LayerNorms are
// non-parametric: no weight and no bias, so no norm tensor is stored at all. OLMo 3 (olmo3) is OLMo 2's
// layout with sliding-window attention on most layers, named by layer_types.
#include "arch/families/families.hpp"

namespace hfi::arch {
namespace {

// q/k/v/o with optional biases, then q_norm [heads*head_dim] and k_norm [kv_heads*head_dim]:
// one RMSNorm weight per channel of the whole projection, not one per head_dim.
void add_full_width_qk_norm_attention(ArchModel& m, const std::string& p, int layer, const AttentionDims& d) {
  add_gqa_attention(m, p, layer, d);
  add(m, p + "q_norm.weight", {d.heads * d.head_dim}, Role::Attention, layer);
  add(m, p + "k_norm.weight", {d.kv_heads * d.head_dim}, Role::Attention, layer);
}

std::string describe_olmo_attention(const AttentionDims& d) {
  return describe_attention(d) + ", QK-norm over the full q/k width";
}

}  // namespace

Result<ArchModel> olmo2_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "olmo2";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = d.o_bias = r.flag({"attention_bias"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_full_width_qk_norm_attention(m, p + "self_attn.", l, d);
    add(m, p + "post_attention_layernorm.weight", {d.hidden}, Role::Norm, l);
    add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp);
    add(m, p + "post_feedforward_layernorm.weight", {d.hidden}, Role::Norm, l);
  }
  finish_llama_like(m, r, layers, d);
  m.attention_summary = describe_olmo_attention(d);
  m.norm_summary = "RMSNorm on each sublayer's output (post-attention, post-feedforward), none before";
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  return m;
}

Result<ArchModel> olmoe_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "olmoe";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = d.o_bias = r.flag({"attention_bias"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t experts = r.need({"num_experts"});
  uint64_t top_k = r.need({"num_experts_per_tok"});
  uint64_t inter = r.need({"intermediate_size"});  // per expert
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add(m, p + "input_layernorm.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "post_attention_layernorm.weight", {d.hidden}, Role::Norm, l);
    add_full_width_qk_norm_attention(m, p + "self_attn.", l, d);
    add(m, p + "mlp.gate.weight", {experts, d.hidden}, Role::Router, l);
    add_swiglu_experts(m, p + "mlp.experts.", l, d.hidden, inter, experts, top_k);
  }
  finish_llama_like(m, r, layers, d);
  m.attention_summary = describe_olmo_attention(d);
  if (const Json* clip = cfg.field({"clip_qkv"}); clip && clip->is_number())
    m.attention_summary += ", q/k/v clipped to ±" + std::to_string(static_cast<int>(clip->as_double().value_or(0)));
  m.layer_summary = std::to_string(layers) + " × MoE (" + std::to_string(experts) + " experts, top-" +
                    std::to_string(top_k) + ", softmax router, no shared expert)";
  return m;
}

// The Llama layout without any norm tensor: the same attention and MLP blocks, no
// input_layernorm, post_attention_layernorm or model.norm (LayerNorm with elementwise_affine off).
Result<ArchModel> olmo_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "olmo";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = d.o_bias = r.flag({"attention_bias"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t vocab = r.need({"vocab_size"});
  add(m, "model.embed_tokens.weight", {vocab, d.hidden}, Role::Embedding);
  add_lm_head(m, "lm_head", vocab, d.hidden, r.flag({"tie_word_embeddings"}, false));
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_gqa_attention(m, p + "self_attn.", l, d);
    add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp);
  }
  finish_llama_like(m, r, layers, d);
  if (const Json* clip = cfg.field({"clip_qkv"}); clip && clip->is_number())
    m.attention_summary += ", q/k/v clipped to ±" + format_number(clip->as_double().value_or(0));
  m.norm_summary = "non-parametric LayerNorm (no weight, no bias: no norm tensors stored)";
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  return m;
}

// OLMo 3: OLMo 2's tensors exactly (reuses olmo2_spec); its layer_types mark sliding-window
// layers (3 of every 4 in the released models), which olmo2_spec's attention layout already reads.
Result<ArchModel> olmo3_spec(const ModelConfig& cfg) {
  auto built = olmo2_spec(cfg);
  if (!built) return built;
  ArchModel m = std::move(built.value());
  m.family = "olmo3";
  size_t sliding = 0;
  for (const auto& a : m.attention) sliding += a.kind == AttentionKind::Sliding;
  uint64_t window = ConfigReader(cfg).get({"sliding_window"}, 0);
  if (sliding)
    m.layer_summary += ": " + std::to_string(sliding) + " sliding-window (" + std::to_string(window) + " tokens) + " +
                       std::to_string(m.attention.size() - sliding) + " full";
  return m;
}

}  // namespace hfi::arch
