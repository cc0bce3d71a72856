// Llama 4 (Scout, Maverick): a multimodal MoE decoder. What sets it apart from Llama 3:
//  * MoE feed-forward on the layers listed in moe_layers (default: every interleave_moe_layer_step-th
//    layer), each with a sigmoid router picking top-k of E routed experts plus one always-on shared
//    expert; the routed experts are stored fused as gate_up_proj [E, hidden, 2*inter] and
//    down_proj [E, inter, hidden]. Other layers carry a dense SwiGLU of intermediate_size_mlp.
//  * iRoPE: every no_rope_layer_interval-th layer (default 4) has no rotary embedding and attends
//    over the whole context; the RoPE layers attend within chunks of attention_chunk_size tokens.
//    QK-norm (use_qk_norm) is a weightless L2 norm, so it adds no tensors.
//  * A ViT vision encoder (class token, learned positions, unfold-conv patch embedding, biased
//    attention/MLP, LayerNorm) whose pixel-shuffle adapter and a linear projector feed the text model.
#include <optional>

#include "arch/families/families.hpp"

namespace hfi::arch {
namespace {

// 1 = layer uses RoPE (chunked attention), 0 = NoPE layer (full attention).
std::vector<bool> rope_layers(const ConfigReader& r, uint64_t layers) {
  std::vector<bool> rope(layers, true);
  if (const Json* list = r.field({"no_rope_layers"}); list && list->is_array() && !list->items().empty()) {
    if (list->items().size() != layers)
      throw SpecError("config.json: no_rope_layers has " + std::to_string(list->items().size()) + " entries for " +
                      std::to_string(layers) + " layers");
    for (size_t i = 0; i < layers; ++i) rope[i] = list->items()[i].as_uint().value_or(1) != 0;
    return rope;
  }
  uint64_t interval = r.get({"no_rope_layer_interval"}, 4);
  for (uint64_t i = 0; i < layers; ++i) rope[i] = interval == 0 || (i + 1) % interval != 0;
  return rope;
}

std::vector<bool> moe_layers(const ConfigReader& r, uint64_t layers) {
  std::vector<bool> moe(layers, false);
  if (const Json* list = r.field({"moe_layers"}); list && list->is_array()) {
    for (const Json& v : list->items()) {
      auto i = v.as_uint();
      if (!i || *i >= layers) throw SpecError("config.json: moe_layers lists a layer outside the stack");
      moe[*i] = true;
    }
    return moe;
  }
  uint64_t step = r.get({"interleave_moe_layer_step"}, 1);
  if (step == 0) return moe;
  for (uint64_t i = step - 1; i < layers; i += step) moe[i] = true;
  return moe;
}

// Llama4VisionModel + Llama4MultiModalProjector, named as the checkpoint stores them.
void add_llama4_vision(ArchModel& m, const ConfigReader& r, uint64_t text_hidden) {
  ConfigReader v = r.section("vision_config");
  uint64_t hidden = v.need({"hidden_size"});
  uint64_t inter = v.need({"intermediate_size"});
  uint64_t layers = v.need({"num_hidden_layers"});
  uint64_t patch = v.need({"patch_size"});
  uint64_t image = v.need({"image_size"});
  uint64_t channels = v.get({"num_channels"}, 3);
  uint64_t proj_in = v.need({"projector_input_dim"});
  uint64_t proj_out = v.need({"projector_output_dim"});
  uint64_t out_dim = v.need({"vision_output_dim"});
  bool proj_bias = v.flag({"multi_modal_projector_bias"}, false);
  uint64_t side = image / patch;
  const std::string p = "vision_model.";
  add(m, p + "class_embedding", {hidden}, Role::Vision);
  add(m, p + "positional_embedding_vlm", {side * side + 1, hidden}, Role::Vision);
  add(m, p + "patch_embedding.linear.weight", {hidden, checked_product("vision_config.num_channels × patch_size²", {channels, patch, patch})}, Role::Vision);
  for (const char* ln : {"layernorm_pre", "layernorm_post"}) add_layernorm(m, p + ln, hidden, -1, true, Role::Vision);
  for (uint64_t i = 0; i < layers; ++i) {
    std::string q = p + "model.layers." + std::to_string(i) + ".";
    for (const char* proj : {"q_proj", "k_proj", "v_proj", "o_proj"})
      add_linear(m, q + "self_attn." + proj, hidden, hidden, Role::Vision);
    add_linear(m, q + "mlp.fc1", inter, hidden, Role::Vision);
    add_linear(m, q + "mlp.fc2", hidden, inter, Role::Vision);
    for (const char* ln : {"input_layernorm", "post_attention_layernorm"})
      add_layernorm(m, q + ln, hidden, -1, true, Role::Vision);
  }
  // Pixel-shuffle adapter: the shuffled patch features (intermediate_size wide) go through a
  // two-layer MLP without biases.
  add(m, p + "vision_adapter.mlp.fc1.weight", {proj_in, inter}, Role::Vision);
  add(m, p + "vision_adapter.mlp.fc2.weight", {proj_out, proj_out}, Role::Vision);
  add_linear(m, "multi_modal_projector.linear_1", text_hidden, out_dim, Role::Projector, -1, proj_bias);
}

}  // namespace

Result<ArchModel> llama4_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "llama4";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = d.o_bias = r.flag({"attention_bias"}, false);
  bool qk_norm = r.flag({"use_qk_norm"}, true);  // weightless L2 norm: no tensors
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t experts = r.need({"num_local_experts"});
  uint64_t top_k = r.get({"num_experts_per_tok"}, 1);
  uint64_t moe_inter = r.need({"intermediate_size"});
  uint64_t dense_inter = r.get({"intermediate_size_mlp"}, 0);
  uint64_t chunk = r.get({"attention_chunk_size"}, 8192);
  uint64_t vocab = r.need({"vocab_size"});
  add_embeddings(m, vocab, d.hidden, r.flag({"tie_word_embeddings"}, false));
  auto rope = rope_layers(r, layers);
  auto moe = moe_layers(r, layers);
  uint64_t moe_count = 0, nope_count = 0;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_attention_sublayer(m, p, l, d);
    std::string f = p + "feed_forward.";
    if (!moe[i]) {
      if (dense_inter == 0) throw SpecError("config.json: intermediate_size_mlp is needed for dense layers");
      add_swiglu(m, f, l, d.hidden, dense_inter, Role::Mlp);
      continue;
    }
    ++moe_count;
    add(m, f + "router.weight", {experts, d.hidden}, Role::Router, l);
    size_t first = m.tensors.size();
    add(m, f + "experts.gate_up_proj", {experts, d.hidden, 2 * moe_inter}, Role::RoutedExpert, l);
    add(m, f + "experts.down_proj", {experts, moe_inter, d.hidden}, Role::RoutedExpert, l);
    mark_routed(m, first, static_cast<uint32_t>(top_k), static_cast<uint32_t>(experts));
    add_swiglu(m, f + "shared_expert.", l, d.hidden, moe_inter, Role::SharedExpert);
  }
  // Newer configs spell the schedule out as layer_types (chunked_attention / full_attention).
  std::optional<std::vector<AttentionKind>> kinds;
  if (const Json* t = r.field({"layer_types"}); t && t->is_array() && !t->items().empty())
    kinds = attention_kinds(r, layers);
  for (uint64_t i = 0; i < layers; ++i) {
    AttentionKind kind = kinds ? (*kinds)[i] : rope[i] && chunk > 0 ? AttentionKind::Chunked : AttentionKind::Full;
    uint64_t window = kind == AttentionKind::Chunked ? chunk : 0;
    if (!rope[i]) ++nope_count;
    m.attention.push_back(attention_layer(d, window ? kind : AttentionKind::Full, window));
  }
  if (r.has_section("vision_config")) add_llama4_vision(m, r, d.hidden);

  m.attention_summary = describe_attention(d) + (qk_norm ? ", L2 QK-norm on RoPE layers" : "") + "; " +
                        std::to_string(layers - nope_count) + " chunked (" + std::to_string(chunk) + " tokens) + " +
                        std::to_string(nope_count) + " global NoPE layers";
  m.position_summary = describe_rope(r) + "; no RoPE on " + std::to_string(nope_count) + " layers";
  m.norm_summary = "RMSNorm";
  m.activation_summary = describe_activation(r, true);
  m.layer_summary = std::to_string(layers) + " layers: " + std::to_string(moe_count) + " MoE (" +
                    std::to_string(experts) + " routed top-" + std::to_string(top_k) +
                    " sigmoid router + 1 shared expert) + " + std::to_string(layers - moe_count) +
                    " dense; ViT vision encoder + pixel-shuffle adapter + linear projector";
  // Attention temperature tuning on NoPE layers and router losses change neither tensors nor cost.
  m.structure_irrelevant_fields = {"attn_temperature_tuning", "floor_scale", "attn_scale", "router_jitter_noise",
                                   "boi_token_index", "eoi_token_index", "image_token_index",
                                   "for_llm_compressor", "cache_implementation", "image_processor_config"};
  return m;
}

}  // namespace hfi::arch
