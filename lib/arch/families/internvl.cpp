// InternVL 3 / 3.5 as transformers ports them (internvl, the "-hf" uploads): an InternViT vision
// tower, a pixel-shuffle MLP projector and the language model text_config.model_type names (qwen2
// for InternVL3, qwen3 / qwen3_moe / gpt_oss for InternVL3.5, llama for a few), which is built by its
// own registered spec through nested_text_model (llava.cpp). What the wrapper adds:
//  * vision_tower.*: a BEiT-style ViT. embeddings.cls_token [1, 1, Hv], a biased conv patch
//    embedding (patch_embeddings.projection), a learned position table [1, (image/patch)² + 1, Hv]
//    (use_absolute_position_embeddings), mask_token only when use_mask_token; per layer
//    encoder.layer.N: attention.{q,k,v}_proj (biased when attention_bias) and the biased
//    attention.projection_layer, q_norm / k_norm RMSNorms over the full width when use_qk_norm
//    (InternViT-6B), layer-scale vectors lambda_1 / lambda_2 [Hv], layernorm_before / layernorm_after
//    (LayerNorm, or RMSNorm without bias when norm_type is rms_norm) and a biased GELU MLP fc1 / fc2;
//    a final layernorm only when use_mean_pooling is false (every release pools by mean: none).
//  * multi_modal_projector.*: the pixel shuffle folds (1/downsample_ratio)² neighbouring patches into
//    one token, then LayerNorm over Hv·s², linear_1 [H, Hv·s²], GELU, linear_2 [H, H], all biased.
// Writers of transformers 4.52 (the published -hf uploads) store the legacy layout: vision_tower.*,
// multi_modal_projector.*, language_model.model.*, language_model.lm_head.*; later ones store
// model.vision_tower.*, model.multi_modal_projector.*, model.language_model.*, lm_head.*. The tower
// names here are written from the root; reconcile finds either layout through embed_tokens.
// The head is untied in every release (text_config.tie_word_embeddings false), though InternVLConfig
// itself defaults tie_word_embeddings to true in transformers 5: the text model's value decides.
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "arch/families/clip_towers.hpp"  // nested_text_model (llava.cpp)
#include "arch/families/families.hpp"

namespace hfi::arch {

namespace {

struct InternVitDims {
  uint64_t hidden = 1024, inter = 4096, layers = 24, heads = 16, channels = 3;
  uint64_t image_h = 448, image_w = 448, patch_h = 14, patch_w = 14, positions = 0;
  bool qkv_bias = false, qk_norm = false, rms_norm = false, mask_token = false, abs_positions = true,
       final_norm = false;
};

// image_size / patch_size: one integer or a [height, width] pair (the -hf configs write pairs).
std::pair<uint64_t, uint64_t> size_pair(const ConfigReader& v, std::string_view key, uint64_t fallback) {
  const Json* f = v.field({key});
  if (!f || f->is_null()) return {fallback, fallback};
  if (f->is_array()) {
    const auto& items = f->items();
    auto h = items.size() == 2 ? items[0].as_int() : std::nullopt;
    auto w = items.size() == 2 ? items[1].as_int() : std::nullopt;
    if (!h || !w || *h <= 0 || *w <= 0)
      throw SpecError("config.json: vision_config." + std::string(key) + " is not two positive integers");
    return {static_cast<uint64_t>(*h), static_cast<uint64_t>(*w)};
  }
  uint64_t n = v.get({key}, fallback);
  return {n, n};
}

// vision_config with the defaults of transformers' InternVLVisionConfig (InternViT-300M at 448 px).
InternVitDims read_internvit(const ConfigReader& r) {
  InternVitDims d;
  if (r.has_section("vision_config")) {
    ConfigReader v = r.section("vision_config");
    d.hidden = v.get({"hidden_size"}, d.hidden);
    d.inter = v.get({"intermediate_size"}, d.inter);
    d.layers = v.get({"num_hidden_layers"}, d.layers);
    d.heads = v.get({"num_attention_heads"}, d.heads);
    d.channels = v.get({"num_channels"}, d.channels);
    std::tie(d.image_h, d.image_w) = size_pair(v, "image_size", 448);
    std::tie(d.patch_h, d.patch_w) = size_pair(v, "patch_size", 14);
    d.qkv_bias = v.flag({"attention_bias"}, false);
    d.qk_norm = v.flag({"use_qk_norm"}, false);
    d.mask_token = v.flag({"use_mask_token"}, false);
    d.abs_positions = v.flag({"use_absolute_position_embeddings"}, true);
    d.final_norm = !v.flag({"use_mean_pooling"}, true);
    if (const Json* n = v.field({"norm_type"}); n && n->is_string()) {
      if (n->as_string() == "rms_norm") d.rms_norm = true;
      else if (n->as_string() != "layer_norm")
        throw SpecError("config.json: vision_config.norm_type \"" + n->as_string() + "\" is neither layer_norm nor rms_norm");
    }
  }
  if (d.hidden == 0 || d.inter == 0 || d.layers == 0 || d.heads == 0 || d.channels == 0 || d.patch_h == 0 || d.patch_w == 0)
    throw SpecError("config.json: vision_config has a zero size");
  if (d.hidden % d.heads != 0)
    throw SpecError("config.json: vision_config.hidden_size is not a multiple of num_attention_heads");
  // The position table holds the patch grid of the configured image plus the class token.
  d.positions = checked_sum("(image / patch)² + 1", {checked_product("image patches", {d.image_h / d.patch_h, d.image_w / d.patch_w}), 1});
  return d;
}

void add_internvit(ArchModel& m, const std::string& p, const InternVitDims& d) {
  const uint64_t h = d.hidden;
  add(m, p + "embeddings.cls_token", {1, 1, h}, Role::Vision);
  if (d.mask_token) add(m, p + "embeddings.mask_token", {1, 1, h}, Role::Vision);
  add(m, p + "embeddings.patch_embeddings.projection.weight", {h, d.channels, d.patch_h, d.patch_w}, Role::Vision);
  add(m, p + "embeddings.patch_embeddings.projection.bias", {h}, Role::Vision);
  if (d.abs_positions) add(m, p + "embeddings.position_embeddings", {1, d.positions, h}, Role::Vision);
  for (uint64_t i = 0; i < d.layers; ++i) {
    const std::string q = p + "encoder.layer." + std::to_string(i) + ".";
    for (const char* proj : {"q_proj", "k_proj", "v_proj"})
      add_linear(m, q + "attention." + proj, h, h, Role::Vision, -1, d.qkv_bias);
    add_linear(m, q + "attention.projection_layer", h, h, Role::Vision);
    if (d.qk_norm) {
      add(m, q + "attention.q_norm.weight", {h}, Role::Vision);
      add(m, q + "attention.k_norm.weight", {h}, Role::Vision);
    }
    add(m, q + "lambda_1", {h}, Role::Vision);
    add(m, q + "lambda_2", {h}, Role::Vision);
    add_layernorm(m, q + "layernorm_before", h, -1, !d.rms_norm, Role::Vision);
    add_layernorm(m, q + "layernorm_after", h, -1, !d.rms_norm, Role::Vision);
    add_linear(m, q + "mlp.fc1", d.inter, h, Role::Vision);
    add_linear(m, q + "mlp.fc2", h, d.inter, Role::Vision);
  }
  // InternVLVisionModel's own LayerNorm is an identity when it pools by mean.
  if (d.final_norm) add_layernorm(m, p + "layernorm", h, -1, true, Role::Vision);
}

}  // namespace

Result<ArchModel> internvl_spec(const ModelConfig& cfg) {
  // InternVLConfig builds a Qwen2 text model when text_config names none.
  ArchModel m = nested_text_model(cfg, "qwen2", "internvl");
  m.family = "internvl";
  ConfigReader r(cfg);
  InternVitDims v = read_internvit(r);
  add_internvit(m, "vision_tower.", v);

  // The projector's input width is Hv · int(1 / downsample_ratio)², as InternVLMultiModalProjector
  // sizes it (default ratio 0.5: four patches per token).
  double ratio = r.number({"downsample_ratio"}, 0.5);
  if (!(ratio > 0.0) || ratio > 1.0) throw SpecError("config.json: downsample_ratio must lie in (0, 1]");
  const auto scale = static_cast<uint64_t>(1.0 / ratio);
  const uint64_t folded = checked_product("vision hidden × (1 / downsample_ratio)²", {v.hidden, scale, scale});
  const uint64_t h = m.hidden_size;
  add_layernorm(m, "multi_modal_projector.layer_norm", folded, -1, true, Role::Projector);
  add_linear(m, "multi_modal_projector.linear_1", h, folded, Role::Projector);
  add_linear(m, "multi_modal_projector.linear_2", h, h, Role::Projector);

  const uint64_t grid = checked_product("image patches", {v.image_h / v.patch_h, v.image_w / v.patch_w});
  const uint64_t tokens = grid / (scale * scale);
  m.notes.push_back("vision tower: InternViT, " + std::to_string(v.layers) + " layers × " + std::to_string(v.hidden) +
                    " (" + std::to_string(v.heads) + " heads, MLP " + std::to_string(v.inter) + "), " +
                    (v.rms_norm ? "RMSNorm" : "LayerNorm") + (v.qk_norm ? " + q/k RMSNorm" : "") + ", layer scale, " +
                    std::to_string(v.image_h) + "×" + std::to_string(v.image_w) + " px tiles in " +
                    std::to_string(v.patch_h) + "-px patches (" + std::to_string(grid) + " patches + class token)");
  m.notes.push_back("projector: pixel shuffle ×" + std::to_string(scale) + " (" + std::to_string(grid) + " patches → " +
                    std::to_string(tokens) + " tokens per tile) + LayerNorm + 2-layer GELU MLP");
  m.layer_summary += "; InternViT vision tower (" + std::to_string(v.layers) + " layers × " + std::to_string(v.hidden) +
                     ") + pixel-shuffle MLP projector";
  if (const Json* t = cfg.root().find("tie_word_embeddings"); t && t->is_bool() && t->as_bool() != m.tied_embeddings)
    m.notes.push_back(std::string("config.json: the top-level tie_word_embeddings says ") + (t->as_bool() ? "true" : "false") +
                      " but text_config's says " + (m.tied_embeddings ? "true" : "false") +
                      "; the text model's value is the one read (transformers 4.x ties by it)");
  for (const char* f : {"image_token_id", "image_token_index", "image_seq_length", "projector_hidden_act",
                        "vision_feature_layer", "vision_feature_select_strategy", "tie_word_embeddings"})
    m.structure_irrelevant_fields.emplace_back(f);
  return m;
}

}  // namespace hfi::arch
