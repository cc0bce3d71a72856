// Qwen vision-language models: a Qwen text decoder (qwen2 for Qwen2-VL and Qwen2.5-VL, qwen3 / qwen3_moe for
// Qwen3-VL) fed by a ViT over 3D (time × height × width) patches whose output tokens are merged
// 2×2 by an MLP into the text width. What sets the generations apart:
//  - Qwen2-VL: conv3d patch embedding without bias, LayerNorm blocks with a quick-GELU MLP
//    (fc1/fc2, embed_dim × mlp_ratio), full attention in every block, LayerNorm + MLP merger.
//  - Qwen2.5-VL: conv3d patch embedding without bias, RMSNorm blocks with a SwiGLU MLP (biased),
//    windowed attention except in `fullatt_block_indexes`, one RMSNorm + MLP patch merger.
//  - Qwen3-VL: biased conv3d, a learned position table (`num_position_embeddings`), LayerNorm blocks
//    with a plain GELU MLP (linear_fc1/linear_fc2), full attention everywhere, and besides the final
//    merger one "deepstack" merger per `deepstack_visual_indexes` entry whose output is added to
//    the hidden states of the first text layers; MoE text models keep their experts fused.
// The vision tower sits at "visual." (original Qwen2.5-VL uploads, text under "model.") or
// "model.visual." (text under "model.language_model."); reconcile places non-"model." names beside
// the language model, so the names here are written without a prefix.
#include "arch/families/families.hpp"

namespace hfi::arch {
namespace {

struct VisionDims {
  uint64_t depth = 0, hidden = 0, inter = 0, heads = 0, out_hidden = 0;
  uint64_t in_channels = 3, patch = 0, temporal_patch = 2, merge = 2;
};

// Missing vision_config fields take the defaults of transformers' vision config class, as
// from_pretrained would (Qwen2.5-VL: 32 × 3584 with patch 14; Qwen3-VL: 27 × 1152 with patch 16;
// out_hidden_size 3584 for both).
VisionDims read_vision_dims(const ConfigReader& v, const VisionDims& defaults) {
  VisionDims d;
  d.depth = v.get({"depth"}, defaults.depth);
  d.hidden = v.get({"hidden_size"}, defaults.hidden);
  d.inter = v.get({"intermediate_size"}, defaults.inter);
  d.heads = v.get({"num_heads"}, defaults.heads);
  d.out_hidden = v.get({"out_hidden_size"}, defaults.out_hidden);
  // Original Qwen2.5-VL uploads spell it in_chans, which transformers ignores (default 3).
  d.in_channels = v.get({"in_channels"}, defaults.in_channels);
  d.patch = v.get({"patch_size"}, defaults.patch);
  d.temporal_patch = v.get({"temporal_patch_size"}, defaults.temporal_patch);
  d.merge = v.get({"spatial_merge_size"}, defaults.merge);
  if (d.depth == 0 || d.hidden == 0 || d.heads == 0 || d.inter == 0 || d.patch == 0 || d.merge == 0)
    throw SpecError("config.json: vision_config has a zero size");
  if (d.hidden % d.heads != 0) throw SpecError("config.json: vision_config.hidden_size is not a multiple of num_heads");
  return d;
}

constexpr VisionDims kQwen2_5VisionDefaults{32, 3584, 3420, 16, 3584, 3, 14, 2, 2};
constexpr VisionDims kQwen3VisionDefaults{27, 1152, 4304, 16, 3584, 3, 16, 2, 2};

std::string index_list(const Json* list) {
  std::string out;
  if (list && list->is_array())
    for (const Json& v : list->items()) out += (out.empty() ? "" : ", ") + std::to_string(v.as_uint().value_or(0));
  return out;
}

// Qwen2-VL vision tower and merger: LayerNorm blocks (weight and bias) with a plain MLP of
// embed_dim × mlp_ratio (fc1/fc2, quick-GELU), full attention in every block, and a LayerNorm +
// two-layer MLP merger into vision_config.hidden_size (the text width). Missing fields take the
// defaults of transformers' Qwen2VLVisionConfig (32 × 1280, ratio 4, 16 heads, patch 14).
void add_qwen2_vision(ArchModel& m, const ConfigReader& r) {
  ConfigReader v = r.section("vision_config");
  uint64_t depth = v.get({"depth"}, 32);
  uint64_t embed = v.get({"embed_dim"}, 1280);
  uint64_t out = v.get({"hidden_size"}, 3584);
  double ratio = v.number({"mlp_ratio"}, 4.0);
  uint64_t heads = v.get({"num_heads"}, 16);
  // transformers reads in_channels; the original uploads' in_chans is ignored (default 3).
  uint64_t channels = v.get({"in_channels"}, 3);
  uint64_t patch = v.get({"patch_size"}, 14);
  uint64_t temporal = v.get({"temporal_patch_size"}, 2);
  uint64_t merge = v.get({"spatial_merge_size"}, 2);
  uint64_t inter = static_cast<uint64_t>(static_cast<double>(embed) * ratio);
  if (depth == 0 || embed == 0 || heads == 0 || patch == 0 || merge == 0 || inter == 0)
    throw SpecError("config.json: vision_config has a zero size");
  if (embed % heads != 0) throw SpecError("config.json: vision_config.embed_dim is not a multiple of num_heads");
  add(m, "visual.patch_embed.proj.weight", {embed, channels, temporal, patch, patch}, Role::Vision);
  for (uint64_t i = 0; i < depth; ++i) {
    std::string p = "visual.blocks." + std::to_string(i) + ".";
    for (const char* norm : {"norm1", "norm2"}) add_layernorm(m, p + norm, embed, -1, true, Role::Vision);
    add_linear(m, p + "attn.qkv", 3 * embed, embed, Role::Vision);
    add_linear(m, p + "attn.proj", embed, embed, Role::Vision);
    add_linear(m, p + "mlp.fc1", inter, embed, Role::Vision);
    add_linear(m, p + "mlp.fc2", embed, inter, Role::Vision);
  }
  uint64_t merged = checked_product("vision_config.embed_dim × spatial_merge_size²", {embed, merge, merge});
  add_layernorm(m, "visual.merger.ln_q", embed, -1, true, Role::Projector);
  add_linear(m, "visual.merger.mlp.0", merged, merged, Role::Projector);
  add_linear(m, "visual.merger.mlp.2", out, merged, Role::Projector);
  m.notes.push_back("vision: " + std::to_string(depth) + " blocks × " + std::to_string(embed) + " wide, " +
                    std::to_string(heads) + " heads, LayerNorm, MLP " + std::to_string(inter) +
                    ", full attention; " + std::to_string(merge) + "×" + std::to_string(merge) +
                    " patch merger into " + std::to_string(out));
  m.layer_summary += " + vision tower (" + std::to_string(depth) + " blocks)";
}

// Qwen2.5-VL vision tower and merger.
void add_qwen2_5_vision(ArchModel& m, const ConfigReader& r) {
  ConfigReader v = r.section("vision_config");
  VisionDims d = read_vision_dims(v, kQwen2_5VisionDefaults);
  add(m, "visual.patch_embed.proj.weight", {d.hidden, d.in_channels, d.temporal_patch, d.patch, d.patch}, Role::Vision);
  for (uint64_t i = 0; i < d.depth; ++i) {
    std::string p = "visual.blocks." + std::to_string(i) + ".";
    add(m, p + "norm1.weight", {d.hidden}, Role::Vision);
    add(m, p + "norm2.weight", {d.hidden}, Role::Vision);
    add_linear(m, p + "attn.qkv", 3 * d.hidden, d.hidden, Role::Vision);
    add_linear(m, p + "attn.proj", d.hidden, d.hidden, Role::Vision);
    add_swiglu(m, p + "mlp.", -1, d.hidden, d.inter, Role::Vision, true);
  }
  uint64_t merged = checked_product("vision_config.hidden_size × spatial_merge_size²", {d.hidden, d.merge, d.merge});
  add(m, "visual.merger.ln_q.weight", {d.hidden}, Role::Projector);
  add_linear(m, "visual.merger.mlp.0", merged, merged, Role::Projector);
  add_linear(m, "visual.merger.mlp.2", d.out_hidden, merged, Role::Projector);

  const Json* full_list = v.field({"fullatt_block_indexes"});
  std::string full = full_list ? index_list(full_list) : "7, 15, 23, 31";  // transformers' default
  uint64_t window = v.get({"window_size"}, 112);
  m.notes.push_back("vision: " + std::to_string(d.depth) + " blocks × " + std::to_string(d.hidden) + " wide, " +
                    std::to_string(d.heads) + " heads, RMSNorm, SwiGLU " + std::to_string(d.inter) + "; " +
                    (window ? "attention in " + std::to_string(window) + "-pixel windows" : std::string("windowed attention")) +
                    (full.empty() ? "" : " except full attention in blocks " + full) + "; " +
                    std::to_string(d.merge) + "×" + std::to_string(d.merge) + " patch merger into " +
                    std::to_string(d.out_hidden));
  m.layer_summary += " + vision tower (" + std::to_string(d.depth) + " blocks)";
}

// Qwen3-VL vision tower, merger and deepstack mergers.
void add_qwen3_vision(ArchModel& m, const ConfigReader& r) {
  ConfigReader v = r.section("vision_config");
  VisionDims d = read_vision_dims(v, kQwen3VisionDefaults);
  uint64_t positions = v.get({"num_position_embeddings"}, 2304);
  add(m, "visual.patch_embed.proj.weight", {d.hidden, d.in_channels, d.temporal_patch, d.patch, d.patch}, Role::Vision);
  add(m, "visual.patch_embed.proj.bias", {d.hidden}, Role::Vision);
  add(m, "visual.pos_embed.weight", {positions, d.hidden}, Role::Vision);
  for (uint64_t i = 0; i < d.depth; ++i) {
    std::string p = "visual.blocks." + std::to_string(i) + ".";
    for (const char* norm : {"norm1", "norm2"}) add_layernorm(m, p + norm, d.hidden, -1, true, Role::Vision);
    add_linear(m, p + "attn.qkv", 3 * d.hidden, d.hidden, Role::Vision);
    add_linear(m, p + "attn.proj", d.hidden, d.hidden, Role::Vision);
    add_linear(m, p + "mlp.linear_fc1", d.inter, d.hidden, Role::Vision);
    add_linear(m, p + "mlp.linear_fc2", d.hidden, d.inter, Role::Vision);
  }
  uint64_t merged = checked_product("vision_config.hidden_size × spatial_merge_size²", {d.hidden, d.merge, d.merge});
  // The final merger normalises each patch before the 2×2 shuffle; deepstack mergers normalise the
  // shuffled vector.
  auto merger = [&](const std::string& p, uint64_t norm_width) {
    add_layernorm(m, p + "norm", norm_width, -1, true, Role::Projector);
    add_linear(m, p + "linear_fc1", merged, merged, Role::Projector);
    add_linear(m, p + "linear_fc2", d.out_hidden, merged, Role::Projector);
  };
  merger("visual.merger.", d.hidden);
  // transformers' default is [8, 16, 24]; an explicit empty list means no deepstack mergers.
  const Json* deep = v.field({"deepstack_visual_indexes"});
  size_t deepstack = !deep || deep->is_null() ? 3 : deep->is_array() ? deep->items().size() : 0;
  std::string deep_blocks = !deep || deep->is_null() ? "8, 16, 24" : index_list(deep);
  for (size_t k = 0; k < deepstack; ++k) merger("visual.deepstack_merger_list." + std::to_string(k) + ".", merged);

  m.notes.push_back("vision: " + std::to_string(d.depth) + " blocks × " + std::to_string(d.hidden) + " wide, " +
                    std::to_string(d.heads) + " heads, LayerNorm, GELU MLP " + std::to_string(d.inter) +
                    ", learned " + std::to_string(positions) + "-position table; " + std::to_string(d.merge) + "×" +
                    std::to_string(d.merge) + " patch merger into " + std::to_string(d.out_hidden) +
                    (deepstack ? ", plus " + std::to_string(deepstack) + " deepstack mergers (blocks " + deep_blocks +
                                     ") feeding the first text layers"
                               : std::string()));
  m.layer_summary += " + vision tower (" + std::to_string(d.depth) + " blocks)";
}

// Multimodal token ids and per-second temporal position scaling: no tensors, no per-token cost.
const char* const kTokenFields[] = {"image_token_id", "video_token_id", "vision_start_token_id", "vision_end_token_id",
                                    "vision_token_id", "audio_token_id"};

// 3D multimodal RoPE: the rotary dimensions are split between time, height and width positions.
void finish(ArchModel& m, const ModelConfig& cfg, const char* family) {
  m.family = family;
  for (const char* f : kTokenFields) m.structure_irrelevant_fields.emplace_back(f);
  std::string& pos = m.position_summary;
  if (size_t at = pos.find(", mrope scaling"); at != std::string::npos) pos.erase(at, 15);
  std::string sections;
  if (const Json* rope = cfg.field({"rope_scaling", "rope_parameters"}); rope && rope->is_object())
    if (const Json* s = rope->find("mrope_section"); s && s->is_array())
      for (const Json& v : s->items()) sections += (sections.empty() ? "" : "/") + std::to_string(v.as_uint().value_or(0));
  if (pos.starts_with("RoPE")) pos.replace(0, 4, "M-RoPE" + (sections.empty() ? "" : " (t/h/w " + sections + ")"));
}

}  // namespace

Result<ArchModel> qwen2_vl_spec(const ModelConfig& cfg) {
  ArchModel m = dense_decoder(cfg, "qwen2_vl", true, false);
  add_qwen2_vision(m, ConfigReader(cfg));
  finish(m, cfg, "qwen2_vl");
  return m;
}

Result<ArchModel> qwen2_5_vl_spec(const ModelConfig& cfg) {
  ArchModel m = dense_decoder(cfg, "qwen2_5_vl", true, false);
  add_qwen2_5_vision(m, ConfigReader(cfg));
  finish(m, cfg, "qwen2_5_vl");
  return m;
}

Result<ArchModel> qwen3_vl_spec(const ModelConfig& cfg) {
  ArchModel m = dense_decoder(cfg, "qwen3_vl", false, true);
  add_qwen3_vision(m, ConfigReader(cfg));
  finish(m, cfg, "qwen3_vl");
  return m;
}

Result<ArchModel> qwen3_vl_moe_spec(const ModelConfig& cfg) {
  ArchModel m = qwen_moe_decoder(cfg, "qwen3_vl_moe", true, true);
  add_qwen3_vision(m, ConfigReader(cfg));
  finish(m, cfg, "qwen3_vl_moe");
  return m;
}

}  // namespace hfi::arch
