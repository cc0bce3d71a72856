// Mistral 4 (Mistral Small 4): DeepSeek-V3's multi-head latent attention and shared + routed expert
// MoE, with Mistral's choices on top. What sets it apart from deepseek_v3:
//  * a softmax router (mlp.gate.weight) without DeepSeek-V3's selection bias
//    (e_score_correction_bias) or sigmoid scores; n_group/topk_group only restrict the selection;
//  * routed experts stored fused, transformers-style: experts.gate_up_proj [E, 2*I, H] and
//    experts.down_proj [E, H, I], instead of one module per expert;
//  * no multi-token-prediction layers; dense MLP only below first_k_dense_replace (0 in Small 4);
//  * Llama-4 attention temperature (rope_parameters.llama_4_scaling_beta): queries are multiplied by
//    1 + beta * log(1 + floor(position / original_max_position_embeddings)); a per-position scalar,
//    so it changes neither tensors nor the cache.
// Released checkpoints wrap it as the language model of a mistral3 config (Pixtral vision tower).
#include <algorithm>
#include <cstdio>

#include "arch/families/families.hpp"

namespace hfi::arch {

std::string describe_llama4_query_scaling(const ModelConfig& cfg) {
  const Json* rope = cfg.field({"rope_parameters", "rope_scaling"});
  if (!rope || !rope->is_object()) return "";
  const Json* beta = rope->find("llama_4_scaling_beta");
  if (!beta || !beta->is_number() || beta->as_double().value_or(0) == 0) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", *beta->as_double());
  return std::string(", Llama-4 query temperature β=") + buf;
}

Result<ArchModel> mistral4_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "mistral4";
  MlaDims d = read_mla_dims(r);
  d.bias = r.flag({"attention_bias"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t experts = r.need({"n_routed_experts"});
  uint64_t top_k = r.need({"num_experts_per_tok"});
  uint64_t moe_inter = r.need({"moe_intermediate_size"});
  uint64_t shared = r.get({"n_shared_experts"}, 1);
  uint64_t first_dense = r.get({"first_k_dense_replace"}, 0);
  uint64_t dense_inter = first_dense ? r.need({"intermediate_size"}) : r.get({"intermediate_size"}, 0);
  uint64_t vocab = r.need({"vocab_size"});
  add_embeddings(m, vocab, d.hidden, r.flag({"tie_word_embeddings"}, false));
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add(m, p + "input_layernorm.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "post_attention_layernorm.weight", {d.hidden}, Role::Norm, l);
    add_mla_attention(m, p + "self_attn.", l, d);
    if (i < first_dense) {
      add_swiglu(m, p + "mlp.", l, d.hidden, dense_inter, Role::Mlp);
      continue;
    }
    add(m, p + "mlp.gate.weight", {experts, d.hidden}, Role::Router, l);
    size_t first = m.tensors.size();
    add(m, p + "mlp.experts.gate_up_proj", {experts, 2 * moe_inter, d.hidden}, Role::RoutedExpert, l);
    add(m, p + "mlp.experts.down_proj", {experts, d.hidden, moe_inter}, Role::RoutedExpert, l);
    mark_routed(m, first, static_cast<uint32_t>(top_k), static_cast<uint32_t>(experts));
    if (shared > 0) add_swiglu(m, p + "mlp.shared_experts.", l, d.hidden, moe_inter * shared, Role::SharedExpert);
  }
  add_mla_layers(m, layers, d);

  m.attention_summary = describe_mla(d);
  m.position_summary = describe_rope(r) + describe_llama4_query_scaling(cfg);
  m.norm_summary = "RMSNorm";
  m.activation_summary = describe_activation(r, true);
  m.layer_summary = std::to_string(layers) + " layers: " + std::to_string(std::min(first_dense, layers)) + " dense + " +
                    std::to_string(layers - std::min(first_dense, layers)) + " MoE (" + std::to_string(experts) +
                    " routed top-" + std::to_string(top_k) + " + " + std::to_string(shared) +
                    " shared, softmax router, fused experts)";
  // Routing and RoPE details that change neither the tensors nor the per-token cost; qk_head_dim
  // is derived (nope + rope).
  m.structure_irrelevant_fields = {"rope_interleave", "qk_head_dim", "pretraining_tp"};
  return m;
}

}  // namespace hfi::arch
