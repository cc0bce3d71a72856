// PaliGemma and PaliGemma 2 (paligemma): a SigLIP So400m vision tower whose patch features one
// biased Linear maps into the text width, prepended (all image tokens, then the prompt, with full
// attention over both) to a Gemma (PaliGemma) or Gemma 2 (PaliGemma 2) decoder. What the wrapper adds
// to the language model:
//  * vision_tower.vision_model.*: a whole SiglipVisionModel without its pooling head
//    (PaliGemmaConfig's default tower says vision_use_head false);
//  * multi_modal_projector.linear [projection_dim, Hv] with bias.
// The language model is the registered spec its text_config.model_type names (gemma, gemma2), run
// through nested_text_model (llava.cpp): PaliGemma configs give only the fields that differ from
// GemmaConfig, whose defaults gemma_spec applies itself. The head is tied (GemmaConfig default).
// Writers before transformers 4.52 store "language_model.model.*" with the towers at the root; newer
// ones "model.language_model.*" beside "model.vision_tower.*"; reconcile finds either layout.
#include "arch/families/clip_towers.hpp"
#include "arch/families/families.hpp"

namespace hfi::arch {

namespace {

// PaliGemmaConfig's default tower: SigLIP So400m/14 at 224 px (intermediate 4096 there; the released
// checkpoints state 4304), no pooling head.
constexpr const char* kPaliGemmaVision =
    R"({"model_type":"siglip_vision_model","hidden_size":1152,"intermediate_size":4096,"patch_size":14,"image_size":224,"num_hidden_layers":27,"num_attention_heads":16,"vision_use_head":false})";

}  // namespace

Result<ArchModel> paligemma_spec(const ModelConfig& cfg) {
  ArchModel m = nested_text_model(cfg, "gemma", "paligemma");
  m.family = "paligemma";
  ConfigReader r(cfg);
  std::string tower;
  VitTower v = add_vision_from_config(m, r, "vision_tower.vision_model.", kPaliGemmaVision, &tower);
  // The projector's output width is vision_config.projection_dim, which PaliGemmaConfig overwrites
  // with its own projection_dim (default 2048); it must equal the text width for the image tokens
  // to sit in the text sequence.
  uint64_t proj = m.hidden_size;
  if (const Json* p = cfg.root().find("projection_dim"); p && p->as_int() && *p->as_int() > 0)
    proj = static_cast<uint64_t>(*p->as_int());
  if (r.has_section("vision_config")) r.section("vision_config").field({"projection_dim"});
  if (proj != m.hidden_size)
    throw SpecError("config.json: projection_dim " + std::to_string(proj) + " differs from the text hidden_size " +
                    std::to_string(m.hidden_size));
  add_linear(m, "multi_modal_projector.linear", proj, v.hidden, Role::Projector, -1, true);
  m.layer_summary += "; " + tower + " vision tower (" + std::to_string(v.layers) +
                     " layers, " + std::to_string(v.positions) + " image tokens) + linear projector";
  m.notes.push_back("image tokens and the prompt attend to each other both ways (prefix-LM); the answer is causal");
  for (const char* f : {"image_token_index", "image_token_id", "ignore_index", "num_image_tokens", "projector_hidden_act",
                        "vocab_size", "hidden_size", "projection_dim"})
    m.structure_irrelevant_fields.emplace_back(f);
  return m;
}

}  // namespace hfi::arch
