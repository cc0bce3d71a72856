// Mistral 3 multimodal (Mistral Small 3.1 / 3.2, Magistral Small 2509): a Mistral language model
// behind a Pixtral vision tower. What sets it apart from a plain Mistral checkpoint:
//  * vision_tower.*: Pixtral ViT (conv patch embedding without bias, RMSNorm ln_pre, per layer
//    RMSNorm attention_norm/ffn_norm, bias-free q/k/v/o and SwiGLU feed_forward, 2-D RoPE without
//    tensors);
//  * multi_modal_projector.*: RMSNorm over the vision features, a patch merger folding each
//    spatial_merge_size² block of patches into one (merging_layer [Hv, Hv*m²]), then a GELU MLP
//    linear_1 [H, Hv*feature_layers] and linear_2 [H, H].
// The text model is the mistral spec (Small 3.x) or the mistral4 one (Small 4); its tensors live
// under "language_model.model." (transformers < 4.52 writers) or "model.language_model." (later
// ones), which reconcile finds through embed_tokens. Tower names are written from the checkpoint root as the older
// writers store them ("vision_tower.", "multi_modal_projector."); later writers put them under
// "model.".
#include <algorithm>

#include "arch/families/families.hpp"

namespace hfi::arch {
namespace {

void add_pixtral(ArchModel& m, const ConfigReader& r, uint64_t text_hidden) {
  ConfigReader v = r.section("vision_config");
  uint64_t hidden = v.need({"hidden_size"});
  uint64_t inter = v.need({"intermediate_size"});
  uint64_t layers = v.need({"num_hidden_layers"});
  uint64_t heads = v.need({"num_attention_heads"});
  uint64_t head_dim = v.get({"head_dim"}, hidden / heads);
  uint64_t patch = v.need({"patch_size"});
  uint64_t channels = v.get({"num_channels"}, 3);
  uint64_t attn = heads * head_dim;
  const std::string p = "vision_tower.";
  add(m, p + "patch_conv.weight", {hidden, channels, patch, patch}, Role::Vision);
  add(m, p + "ln_pre.weight", {hidden}, Role::Vision);
  for (uint64_t i = 0; i < layers; ++i) {
    std::string q = p + "transformer.layers." + std::to_string(i) + ".";
    add(m, q + "attention_norm.weight", {hidden}, Role::Vision);
    add(m, q + "ffn_norm.weight", {hidden}, Role::Vision);
    add(m, q + "attention.q_proj.weight", {attn, hidden}, Role::Vision);
    add(m, q + "attention.k_proj.weight", {attn, hidden}, Role::Vision);
    add(m, q + "attention.v_proj.weight", {attn, hidden}, Role::Vision);
    add(m, q + "attention.o_proj.weight", {hidden, attn}, Role::Vision);
    add_swiglu(m, q + "feed_forward.", -1, hidden, inter, Role::Vision);
  }

  uint64_t merge = r.get({"spatial_merge_size"}, 2);
  bool bias = r.flag({"multimodal_projector_bias"}, false);
  // vision_feature_layer: one layer index, or a list whose features are concatenated.
  uint64_t feature_layers = 1;
  if (const Json* f = r.config().root().find("vision_feature_layer"); f && f->is_array())
    feature_layers = std::max<size_t>(1, f->items().size());
  const std::string j = "multi_modal_projector.";
  add(m, j + "norm.weight", {hidden}, Role::Projector);
  add(m, j + "patch_merger.merging_layer.weight", {hidden, checked_product("vision_config.hidden_size × spatial_merge_size²", {hidden, merge, merge})}, Role::Projector);
  add(m, j + "linear_1.weight", {text_hidden, hidden * feature_layers}, Role::Projector);
  add(m, j + "linear_2.weight", {text_hidden, text_hidden}, Role::Projector);
  if (bias) {
    add(m, j + "linear_1.bias", {text_hidden}, Role::Projector);
    add(m, j + "linear_2.bias", {text_hidden}, Role::Projector);
  }
}

}  // namespace

Result<ArchModel> mistral3_spec(const ModelConfig& cfg) {
  // Mistral Small 3.x wraps a "mistral" decoder, Mistral Small 4 a "mistral4" (MLA + MoE) one.
  std::string text_type = cfg.text_model_type();
  // Ministral 3 / Devstral Small 2 wrap "ministral3": Mistral's tensors plus a Llama-4 query
  // temperature in rope_parameters, which adds none.
  if (text_type != "mistral" && text_type != "ministral3" && text_type != "mistral4" && text_type != "mistral3")
    throw SpecError("config.json: text_config.model_type \"" + text_type +
                    "\" inside mistral3 is none of \"mistral\", \"ministral3\", \"mistral4\"");
  auto text = text_type == "mistral4" ? mistral4_spec(cfg) : mistral_spec(cfg);
  if (!text) return text;
  ArchModel m = std::move(text.value());
  m.family = "mistral3";
  if (text_type == "ministral3") m.position_summary += describe_llama4_query_scaling(cfg);
  ConfigReader r(cfg);
  add_pixtral(m, r, m.hidden_size);
  m.layer_summary += "; Pixtral vision tower + patch-merger projector";
  for (const char* f : {"image_token_index", "projector_hidden_act", "vision_feature_layer"})
    m.structure_irrelevant_fields.emplace_back(f);
  return m;
}

}  // namespace hfi::arch
