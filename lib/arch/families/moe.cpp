// Sparse mixture-of-experts decoders with Llama-style attention: qwen2_moe (shared expert with a
// sigmoid gate), qwen3_moe (QK-norm, no shared expert) and mixtral (w1/w2/w3 expert naming).
#include <set>

#include "arch/families/families.hpp"

namespace hfi::arch {
namespace {

// Qwen MoE: a layer is sparse unless listed in mlp_only_layers or off the decoder_sparse_step grid.
bool qwen_layer_is_sparse(const ModelConfig& cfg, uint64_t layer, uint64_t step, uint64_t experts) {
  if (const Json* only = cfg.field({"mlp_only_layers"}); only && only->is_array())
    for (const Json& v : only->items())
      if (v.as_uint() == layer) return false;
  return experts > 0 && step > 0 && (layer + 1) % step == 0;
}

}  // namespace

ArchModel qwen_moe_decoder(const ModelConfig& cfg, const char* family, bool qwen3, bool fused_experts) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = family;
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = !qwen3 || r.flag({"attention_bias"}, false);
  d.o_bias = qwen3 && r.flag({"attention_bias"}, false);
  d.qk_norm = qwen3;
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t experts = r.need({"num_experts"});
  uint64_t top_k = r.need({"num_experts_per_tok"});
  uint64_t moe_inter = r.need({"moe_intermediate_size"});
  uint64_t shared_inter = qwen3 ? 0 : r.get({"shared_expert_intermediate_size"}, 0);
  uint64_t step = r.get({"decoder_sparse_step"}, 1);
  uint64_t dense_inter = r.get({"intermediate_size"}, 0);
  reserve_layers(m, layers, fused_experts ? 16 : 3 * experts + 16);
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));
  uint64_t sparse_layers = 0;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_attention_sublayer(m, p, l, d);
    if (!qwen_layer_is_sparse(cfg, i, step, experts)) {
      if (dense_inter == 0) throw SpecError("config.json: intermediate_size is needed for dense layers");
      add_swiglu(m, p + "mlp.", l, d.hidden, dense_inter, Role::Mlp);
      continue;
    }
    ++sparse_layers;
    add(m, p + "mlp.gate.weight", {experts, d.hidden}, Role::Router, l);
    if (fused_experts) {
      size_t first = m.tensors.size();
      // Qwen3-VL-MoE stores all experts of a layer in two tensors, [E, hidden, 2*inter] (gate then
      // up along the last axis) and [E, inter, hidden]; writers that follow the [E, out, in]
      // convention transpose the last two axes.
      add(m, p + "mlp.experts.gate_up_proj", {experts, d.hidden, 2 * moe_inter}, Role::RoutedExpert, l);
      m.last_alternatives().shapes = {{experts, 2 * moe_inter, d.hidden}};
      add(m, p + "mlp.experts.down_proj", {experts, moe_inter, d.hidden}, Role::RoutedExpert, l);
      m.last_alternatives().shapes = {{experts, d.hidden, moe_inter}};
      mark_routed(m, first, static_cast<uint32_t>(top_k), static_cast<uint32_t>(experts));
    } else {
      add_swiglu_experts(m, p + "mlp.experts.", l, d.hidden, moe_inter, experts, top_k);
    }
    if (shared_inter > 0) {
      add_swiglu(m, p + "mlp.shared_expert.", l, d.hidden, shared_inter, Role::SharedExpert);
      add(m, p + "mlp.shared_expert_gate.weight", {1, d.hidden}, Role::Router, l);
    }
  }
  finish_llama_like(m, r, layers, d);
  m.layer_summary = std::to_string(layers) + " layers, " + std::to_string(sparse_layers) + " MoE (" +
                    std::to_string(experts) + " experts, top-" + std::to_string(top_k) +
                    (shared_inter ? ", + shared expert" : "") + ")";
  return m;
}

Result<ArchModel> qwen2_moe_spec(const ModelConfig& cfg) { return qwen_moe_decoder(cfg, "qwen2_moe", false, false); }
Result<ArchModel> qwen3_moe_spec(const ModelConfig& cfg) { return qwen_moe_decoder(cfg, "qwen3_moe", true, false); }

Result<ArchModel> mixtral_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "mixtral";
  AttentionDims d = read_attention_dims(r);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t experts = r.need({"num_local_experts"});
  uint64_t top_k = r.need({"num_experts_per_tok"});
  uint64_t inter = r.need({"intermediate_size"});
  reserve_layers(m, layers, 3 * experts + 16);
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_attention_sublayer(m, p, l, d);
    add_mixtral_moe(m, p + "block_sparse_moe.", l, d.hidden, inter, experts, top_k);
  }
  finish_llama_like(m, r, layers, d);
  m.layer_summary = std::to_string(layers) + " × MoE (" + std::to_string(experts) + " experts, top-" +
                    std::to_string(top_k) + ")";
  return m;
}

}  // namespace hfi::arch
