// ERNIE 4.5 MoE (ernie4_5_moe): a Llama-style GQA decoder (use_bias puts biases on every
// projection and the head) whose feed-forward is a dense SwiGLU MLP outside the MoE range and, from
// moe_layer_start_index to moe_layer_end_index on the moe_layer_interval grid, a softmax-routed MoE
// of moe_num_experts SwiGLU experts (top moe_k) plus moe_num_shared_experts shared experts stored as
// one MLP of width moe_intermediate_size × moe_num_shared_experts. Selection adds a per-expert bias
// kept apart from the router, mlp.moe_statics.e_score_correction_bias [1, experts]. The released
// checkpoints also carry num_nextn_predict_layers multi-token-prediction layers under their own
// names beside the stack: mtp_emb_norm.k / mtp_hidden_norm.k (RMSNorms), mtp_linear_proj.k
// [hidden, 2 × hidden] and mtp_block.k, a dense decoder layer (transformers does not build them).
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> ernie4_5_moe_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "ernie4_5_moe";
  AttentionDims d = read_attention_dims(r);
  bool bias = r.flag({"use_bias"}, false);
  if (!r.flag({"use_rmsnorm"}, true))
    throw SpecError("config.json: ernie4_5_moe with LayerNorm (use_rmsnorm false) is not modelled");
  d.qkv_bias = d.o_bias = bias;
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t experts = r.need({"moe_num_experts", "num_experts"});
  uint64_t top_k = r.need({"moe_k", "num_experts_per_tok"});
  uint64_t moe_inter = r.need({"moe_intermediate_size"});
  uint64_t shared = r.get({"moe_num_shared_experts"}, 2);  // transformers' default
  uint64_t start = r.get({"moe_layer_start_index"}, 1);
  uint64_t interval = r.get({"moe_layer_interval"}, 1);
  if (interval == 0) throw SpecError("config.json: moe_layer_interval is 0");
  // moe_layer_end_index: -1 (the default) means the last layer.
  uint64_t end = layers - 1;
  if (const Json* f = r.field({"moe_layer_end_index"}))
    if (auto v = f->as_int(); v && *v >= 0) end = static_cast<uint64_t>(*v);
  // The selection bias is stored when the router was trained aux-loss-free (every release);
  // transformers builds it either way, so a writer may or may not keep it otherwise.
  bool selection_bias = r.flag({"moe_use_aux_free"}, true);
  uint64_t mtp_layers = r.get({"num_nextn_predict_layers"}, 0);
  uint64_t vocab = r.need({"vocab_size"});
  bool tied = r.flag({"tie_word_embeddings"}, true);
  add(m, "model.embed_tokens.weight", {vocab, d.hidden}, Role::Embedding);
  add(m, "model.norm.weight", {d.hidden}, Role::Norm);
  add_lm_head(m, "lm_head", vocab, d.hidden, tied, bias);

  uint64_t moe_layers = 0;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_attention_sublayer(m, p, l, d);
    bool moe = (i + 1) % interval == 0 && i >= start && i <= end;
    if (!moe) {
      add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp, bias);
      continue;
    }
    ++moe_layers;
    add(m, p + "mlp.gate.weight", {experts, d.hidden}, Role::Router, l);
    add(m, p + "mlp.moe_statics.e_score_correction_bias", {1, experts}, Role::RoutingBias, l);
    m.tensors.back().optional = !selection_bias;
    size_t first = m.tensors.size();
    for (uint64_t e = 0; e < experts; ++e)
      add_swiglu(m, p + "mlp.experts." + std::to_string(e) + ".", l, d.hidden, moe_inter, Role::RoutedExpert, bias);
    mark_routed(m, first, static_cast<uint32_t>(top_k), static_cast<uint32_t>(experts));
    if (shared > 0) add_swiglu(m, p + "mlp.shared_experts.", l, d.hidden, moe_inter * shared, Role::SharedExpert, bias);
  }

  // MTP layer k: normed embedding and normed last hidden state, concatenated and projected back to
  // hidden, then one dense decoder layer; the head is the main model's. Checkpoints written by
  // transformers drop these tensors, so they may be absent.
  size_t mtp_first = m.tensors.size();
  for (uint64_t k = 0; k < mtp_layers; ++k) {
    int l = static_cast<int>(layers + k);
    std::string n = std::to_string(k);
    add(m, "model.mtp_emb_norm." + n + ".weight", {d.hidden}, Role::Mtp, l);
    add(m, "model.mtp_hidden_norm." + n + ".weight", {d.hidden}, Role::Mtp, l);
    add(m, "model.mtp_linear_proj." + n + ".weight", {d.hidden, 2 * d.hidden}, Role::Mtp, l);
    // ERNIE-4.5-300B-A47B-PT stores this projection transposed.
    m.last_alternatives().shapes = {{2 * d.hidden, d.hidden}};
    std::string p = "model.mtp_block." + n + ".";
    add_attention_sublayer(m, p, l, d);
    add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp, bias);
  }
  for (size_t t = mtp_first; t < m.tensors.size(); ++t) {
    m.tensors[t].mtp = true;
    m.tensors[t].optional = true;
  }

  finish_llama_like(m, r, layers, d);
  if (bias) m.attention_summary += ", o bias";
  m.layer_summary = std::to_string(layers) + " layers: " + std::to_string(layers - moe_layers) + " dense + " +
                    std::to_string(moe_layers) + " MoE (" + std::to_string(experts) + " routed top-" +
                    std::to_string(top_k) + " + " + std::to_string(shared) + " shared, softmax router" +
                    (selection_bias ? " with selection bias" : "") + ")" +
                    (mtp_layers ? ", " + std::to_string(mtp_layers) + " MTP layer(s) if stored" : "");
  // Not structural: Paddle training switches (capacity, gate kernel, fusions, recompute), loss
  // weights and the routing-normalisation epsilon.
  m.structure_irrelevant_fields = {"moe_capacity", "moe_gate", "moe_norm_min", "multi_token_pred_lambda",
                                   "use_flash_attention", "fuse_rms_norm", "fuse_attn_ffn",
                                   "fuse_swiglu", "fuse_gate_detach_matmul", "fuse_linear", "fuse_rope",
                                   "compression_ratio", "moe_aux_loss_lambda", "moe_z_loss_lambda",
                                   "moe_orthogonal_loss_lambda", "global_aux_loss", "moe_group_orthogonal_loss"};
  return m;
}


// ERNIE 4.5 dense (ernie4_5, e.g. ERNIE-4.5-0.3B): the same Llama-style layer as the MoE spec's dense
// layers above (add_attention_sublayer, SwiGLU), every layer dense. use_bias puts biases on all
// seven projections (transformers' Ernie4_5 keeps the head bias-free); head_dim defaults to 128,
// not hidden / heads (the 0.3B model's q width, 16 × 128, is twice its hidden size); the head is
// tied by default. RoPE pairs adjacent channels (GLM style), which changes no tensor.
Result<ArchModel> ernie4_5_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "ernie4_5";
  AttentionDims d = read_attention_dims(r);
  d.head_dim = r.get({"head_dim"}, 128);  // Ernie4_5Config's default
  if (d.head_dim == 0) throw SpecError("config.json: head_dim is 0");
  bool bias = r.flag({"use_bias"}, false);
  d.qkv_bias = d.o_bias = bias;
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, true));
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_attention_sublayer(m, p, l, d);
    add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp, bias);
  }
  finish_llama_like(m, r, layers, d);
  if (bias) m.attention_summary += ", o bias";
  m.position_summary += " (adjacent-pair rotation)";
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  return m;
}

}  // namespace hfi::arch
