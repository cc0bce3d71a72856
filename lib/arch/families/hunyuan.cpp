// Tencent Hunyuan V1 (hunyuan_v1_dense, hunyuan_v1_moe): Llama derivations. Both keep Llama's
// pre-norms and GQA projections (add_attention_sublayer) and add per-head RMSNorms on q and k under
// their own names, self_attn.query_layernorm / key_layernorm [head_dim], applied after RoPE. The
// dense models end in a SwiGLU MLP; the MoE (Hunyuan-A13B) replaces it in every layer with a
// softmax top-k router mlp.gate.wg (kept in float32 by the reference code), num_experts SwiGLU
// experts and a shared SwiGLU (mlp.shared_mlp) whose output is added to the routed sum. Older
// configs give per-layer lists for moe_topk, num_experts, moe_intermediate_size and
// num_shared_expert; RoPE is NTK "dynamic" scaling with an alpha, which changes no tensor.
#include "arch/families/families.hpp"

namespace hfi::arch {
namespace {

// head_dim, else the remote code's attention_head_dim, else hidden / heads.
AttentionDims hunyuan_attention_dims(const ConfigReader& r) {
  AttentionDims d = read_attention_dims(r);
  if (!r.field({"head_dim"})) d.head_dim = r.get({"attention_head_dim"}, d.head_dim);
  if (d.head_dim == 0) throw SpecError("config.json: head_dim is 0");
  d.qkv_bias = d.o_bias = r.flag({"attention_bias"}, false);
  return d;
}

void add_hunyuan_attention(ArchModel& m, const std::string& p, int l, const AttentionDims& d) {
  add_attention_sublayer(m, p, l, d);
  add(m, p + "self_attn.query_layernorm.weight", {d.head_dim}, Role::Attention, l);
  add(m, p + "self_attn.key_layernorm.weight", {d.head_dim}, Role::Attention, l);
}

// A field that is one integer for every layer or a list with one entry per layer.
uint64_t per_layer(const ConfigReader& r, std::string_view key, uint64_t layer, uint64_t layers, uint64_t fallback) {
  const Json* f = r.field({key});
  if (!f || f->is_null()) return fallback;
  if (f->is_array()) {
    if (f->items().size() != layers)
      throw SpecError("config.json: " + std::string(key) + " lists " + std::to_string(f->items().size()) + " values for " +
                      std::to_string(layers) + " layers");
    auto v = f->items()[layer].as_int();
    if (!v || *v < 0) throw SpecError("config.json: " + std::string(key) + "[" + std::to_string(layer) + "] is not a count");
    return r.within_range({key}, static_cast<uint64_t>(*v));
  }
  return r.get({key}, fallback);
}

std::string describe_hunyuan_attention(const AttentionDims& d) {
  AttentionDims shown = d;
  shown.qk_norm = true;
  return describe_attention(shown) + " (query_layernorm / key_layernorm, after RoPE)";
}

}  // namespace

Result<ArchModel> hunyuan_v1_dense_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "hunyuan_v1_dense";
  AttentionDims d = hunyuan_attention_dims(r);
  bool mlp_bias = r.flag({"mlp_bias"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_hunyuan_attention(m, p, l, d);
    add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp, mlp_bias);
  }
  finish_llama_like(m, r, layers, d);
  m.attention_summary = describe_hunyuan_attention(d);
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  // Remote-code leftovers transformers' HunYuanDenseV1 does not read: token ids, classification
  // head switches, cross-layer attention (off in every release) and the original vocabulary size.
  m.structure_irrelevant_fields = {"add_classification_head", "class_num", "pool_type", "dense_list", "cla_share_factor",
                                   "use_cla", "use_qk_norm", "use_rotary_pos_emb", "norm_type", "org_vocab_size",
                                   "pretraining_tp", "eod_token_id", "pad_id", "sep_token_id", "im_start_id",
                                   "im_end_id", "im_newline_id", "text_start_id", "text_end_id", "mask_init_id"};
  return m;
}

Result<ArchModel> hunyuan_v1_moe_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "hunyuan_v1_moe";
  AttentionDims d = hunyuan_attention_dims(r);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));
  uint64_t first_experts = per_layer(r, "num_experts", 0, layers, 1);
  uint64_t first_top_k = per_layer(r, "moe_topk", 0, layers, 1);
  reserve_layers(m, layers, 3 * (first_experts + 1) + 16);
  bool uniform = true;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    uint64_t experts = per_layer(r, "num_experts", i, layers, 1);
    uint64_t top_k = per_layer(r, "moe_topk", i, layers, 1);
    uint64_t expert_inter = per_layer(r, "moe_intermediate_size", i, layers, inter);
    uint64_t shared = per_layer(r, "num_shared_expert", i, layers, 1);
    if (experts == 0 || top_k == 0 || top_k > experts)
      throw SpecError("config.json: layer " + std::to_string(i) + " routes top-" + std::to_string(top_k) + " of " +
                      std::to_string(experts) + " experts");
    uniform = uniform && experts == first_experts && top_k == first_top_k;
    add_hunyuan_attention(m, p, l, d);
    // The remote code sizes the shared MLP as intermediate_size × num_shared_expert.
    if (shared > 0)
      add_swiglu(m, p + "mlp.shared_mlp.", l, d.hidden, checked_product("the shared MLP width", {inter, shared}),
                 Role::SharedExpert);
    add(m, p + "mlp.gate.wg.weight", {experts, d.hidden}, Role::Router, l);
    add_swiglu_experts(m, p + "mlp.experts.", l, d.hidden, expert_inter, experts, top_k);
  }
  finish_llama_like(m, r, layers, d);
  m.attention_summary = describe_hunyuan_attention(d);
  m.layer_summary = std::to_string(layers) + " × MoE (" +
                    (uniform ? std::to_string(first_experts) + " experts, top-" + std::to_string(first_top_k)
                             : std::string("per-layer expert counts")) +
                    ", softmax router, shared MLP)";
  m.notes.push_back("the router mlp.gate.wg is float32 in the reference code (its dtype may differ from the rest)");
  // Remote-code leftovers transformers' HunYuanMoEV1 does not read (see the dense spec), plus
  // capacity/dropping switches of training and the mixing switch that every release sets.
  m.structure_irrelevant_fields = {"add_classification_head", "class_num", "pool_type", "cla_share_factor", "use_cla",
                                   "use_qk_norm", "use_rotary_pos_emb", "norm_type", "org_vocab_size", "pretraining_tp",
                                   "eod_token_id", "pad_id", "sep_token_id", "im_start_id", "im_end_id", "im_newline_id",
                                   "text_start_id", "text_end_id", "mask_init_id", "moe_drop_tokens",
                                   "moe_random_routing_dropped_token", "use_mixed_mlp_moe", "moe_layer_num_skipped",
                                   "use_mla", "kv_lora_rank", "q_lora_rank", "group_limited_greedy"};
  return m;
}

}  // namespace hfi::arch
