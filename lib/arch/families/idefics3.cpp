// Idefics3 and SmolVLM / SmolVLM2 (idefics3, smolvlm): a SigLIP-style vision transformer, a
// pixel-shuffle connector and a Llama-style text model, all under "model.":
//  * model.vision_model.*: biased conv patch embedding, (image/patch)² learned positions, SigLIP
//    encoder layers (layer_norm1/2, biased q/k/v/out_proj, mlp.fc1/fc2), post_layernorm; no class
//    token, no pooling head, no stored position_ids (the patch positions are computed per image);
//  * model.connector.modality_projection.proj [H, Hv × scale_factor²] without bias: the pixel
//    shuffle folds scale_factor² neighbouring patches into one token before the projection, so an
//    image of (image/patch)² patches becomes (image/patch)² / scale_factor² text-side tokens;
//  * model.text_model.*: the language model text_config.model_type names (llama for every released
//    checkpoint), built by its registered spec through nested_text_model (llava.cpp), with
//    lm_head.weight at the root (Idefics3Config defaults tie_word_embeddings to false).
// SmolVLM is the same module tree under other class names (SmolVLMConfig, SmolVLMVisionConfig).
// The vision and connector names are the checkpoint's own spelling (verbatim): they sit beside
// model.text_model.* under "model.", which reconcile would otherwise map onto the text prefix.
#include "arch/families/clip_towers.hpp"
#include "arch/families/families.hpp"

namespace hfi::arch {

namespace {

// Idefics3VisionConfig / SmolVLMVisionConfig defaults (a SigLIP So400m-width tower, 32-px patches).
VitTower read_idefics3_tower(const ConfigReader& r) {
  VitTower t;
  if (!r.has_section("vision_config")) {
    t.hidden = 1152, t.inter = 3072, t.layers = 12, t.heads = 16, t.patch = 32, t.image = 224;
  } else {
    ConfigReader v = r.section("vision_config");
    t.hidden = v.get({"hidden_size"}, 1152);
    t.inter = v.get({"intermediate_size"}, 3072);
    t.layers = v.get({"num_hidden_layers"}, 12);
    t.heads = v.get({"num_attention_heads"}, 16);
    t.channels = v.get({"num_channels"}, 3);
    t.patch = v.get({"patch_size"}, 32);
    t.image = v.get({"image_size"}, 224);
  }
  if (t.hidden == 0 || t.inter == 0 || t.layers == 0 || t.heads == 0 || t.patch == 0 || t.channels == 0)
    throw SpecError("config.json: vision_config has a zero size");
  t.positions = patch_grid(t.image, t.patch);
  t.head = false;
  return t;
}

Result<ArchModel> idefics3_like(const ModelConfig& cfg, const char* family) {
  ArchModel m = nested_text_model(cfg, "llama", family);
  m.family = family;
  ConfigReader r(cfg);
  VitTower v = read_idefics3_tower(r);
  // Idefics3Config default 2; SmolVLM checkpoints say 4 (256M/500M) or 3 (SmolVLM2 2.2B).
  uint64_t scale = 2;
  if (const Json* s = cfg.root().find("scale_factor"); s && s->as_int() && *s->as_int() > 0)
    scale = static_cast<uint64_t>(*s->as_int());
  if ((v.image / v.patch) % scale != 0)
    throw SpecError("config.json: scale_factor " + std::to_string(scale) + " does not divide the " +
                    std::to_string(v.image / v.patch) + " patches per side");
  size_t first = m.tensors.size();
  add_vit_tower(m, "model.vision_model.", v, VitFlavour::Siglip, false);
  add_linear(m, "model.connector.modality_projection.proj", m.hidden_size,
             checked_product("vision hidden × scale_factor²", {v.hidden, scale, scale}), Role::Projector, -1, false);
  for (size_t i = first; i < m.tensors.size(); ++i) m.tensors[i].verbatim = true;
  m.notes.push_back(describe_vit_tower(v, VitFlavour::Siglip));
  uint64_t tokens = v.positions / (scale * scale);
  m.notes.push_back("connector: pixel shuffle ×" + std::to_string(scale) + " (" + std::to_string(v.positions) +
                    " patches → " + std::to_string(tokens) + " tokens per image or tile) + linear projection");
  m.layer_summary += "; SigLIP vision tower (" + std::to_string(v.layers) + " layers) + pixel-shuffle connector";
  for (const char* f : {"image_token_id", "image_token_index", "scale_factor", "vocab_size", "pad_token_id",
                        "use_cache", "vision_feature_layer", "fake_image_token_id", "global_image_token_id",
                        "image_seq_len", "perceiver_config", "pixel_shuffle_factor", "use_resampler",
                        "qk_layer_norms", "neftune_noise_alpha", "freeze_text_layers", "freeze_vision_layers",
                        "freeze_text_module_exceptions", "freeze_vision_module_exceptions",
                        "_flash_attn_2_enabled", "rope_interleaved", "is_llama_config"})
    m.structure_irrelevant_fields.emplace_back(f);
  return m;
}

}  // namespace

Result<ArchModel> idefics3_spec(const ModelConfig& cfg) { return idefics3_like(cfg, "idefics3"); }
Result<ArchModel> smolvlm_spec(const ModelConfig& cfg) { return idefics3_like(cfg, "smolvlm"); }

}  // namespace hfi::arch
