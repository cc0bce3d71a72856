// LLaVA and its successors (llava, llava_next, llava_onevision): a CLIP or SigLIP vision tower
// whose patch features (from vision_feature_layer, one layer or several concatenated) a two-layer
// GELU MLP maps into the text width, in front of an existing language model. What the wrapper adds:
//  * vision_tower.vision_model.*: a whole CLIPVisionModel / SiglipVisionModel (clip_towers.hpp),
//    stored entire even though vision_feature_layer -2 leaves its last layer unused;
//  * multi_modal_projector.linear_1 [H, Hv × feature layers] and linear_2 [H, H], biased unless
//    multimodal_projector_bias is false;
//  * llava_next / llava_onevision: image_newline [H], the learned separator after each row of
//    AnyRes tiles.
// The language model is whichever spec its text_config.model_type names (llama, mistral, qwen2,
// ...), run on a copy of the config whose text_config is completed with that family's
// transformers defaults: LLaVA-1.5 checkpoints give only the fields that differ from LlamaConfig.
// Old writers store it as "language_model.model." + "language_model.lm_head." with the towers at
// the root; transformers >= 4.52 as "model.language_model." with "model.vision_tower." etc.;
// reconcile finds either through embed_tokens.
#include <algorithm>
#include <optional>

#include "arch/families/clip_towers.hpp"
#include "arch/families/families.hpp"

namespace hfi::arch {

namespace {

// transformers' config defaults for the text models LLaVA-family checkpoints wrap, for the fields
// the text specs need. Families not listed are used as they are.
const char* text_defaults(const std::string& type) {
  if (type == "llama")
    return R"({"vocab_size":32000,"hidden_size":4096,"intermediate_size":11008,"num_hidden_layers":32,"num_attention_heads":32,"max_position_embeddings":2048,"tie_word_embeddings":false})";
  if (type == "mistral")
    return R"({"vocab_size":32000,"hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":8,"max_position_embeddings":131072,"sliding_window":4096,"tie_word_embeddings":false})";
  if (type == "qwen2")
    return R"({"vocab_size":151936,"hidden_size":4096,"intermediate_size":22016,"num_hidden_layers":32,"num_attention_heads":32,"num_key_value_heads":32,"max_position_embeddings":32768,"tie_word_embeddings":false})";
  return "{}";
}

}  // namespace

// The config with its text_config completed by `defaults` (fields it lacks), every other key as it
// is; the text specs then read it as transformers builds the language model. Keys the text spec reads
// from the copy are marked read on the original too, so they are not reported as unknown.
ModelConfig with_text_defaults(const ModelConfig& cfg, const std::string& text_type, const char* defaults) {
  auto def = parse_json(defaults, "text defaults");
  if (!def || !def->is_object()) throw SpecError("internal: text defaults");
  std::vector<Json::Member> text;
  const Json* given = cfg.root().find("text_config");
  if (given && given->is_object()) text = given->members();
  // A key the text_config gives stays as given, null included: transformers passes an explicit
  // None through ("sliding_window": null is full attention, not Mistral's default window).
  auto has = [&](const std::string& k) {
    return std::any_of(text.begin(), text.end(), [&](const Json::Member& m) { return m.first == k; });
  };
  for (const auto& m : def->members())
    if (!has(m.first)) text.push_back(m);
  std::erase_if(text, [](const Json::Member& m) { return m.first == "model_type" && !m.second.is_string(); });
  if (!has("model_type")) text.emplace_back("model_type", Json::make_string(text_type));
  std::vector<Json::Member> root;
  for (const auto& m : cfg.root().members())
    if (m.first != "text_config") root.push_back(m);
  root.emplace_back("text_config", Json::make_object(std::move(text)));
  auto parsed = ModelConfig::parse(Json::make_object(std::move(root)).dump(), "config.json");
  if (!parsed) throw SpecError("internal: completed text_config");
  return std::move(parsed.value());
}

// The language model of a multimodal config, built by the spec its text_config.model_type names.
ArchModel nested_text_model(const ModelConfig& cfg, const std::string& fallback_type, const char* wrapper) {
  std::string type = cfg.has_text_config() ? cfg.text_model_type() : fallback_type;
  if (type.empty() || type == cfg.model_type()) type = fallback_type;
  const SpecEntry* entry = find_spec(type);
  if (!entry) throw SpecError("config.json: text_config.model_type \"" + type + "\" inside " + wrapper + " has no spec");
  ModelConfig completed = with_text_defaults(cfg, type, text_defaults(type));
  auto built = entry->build(completed);
  if (!built) throw SpecError("config.json: " + built.error().message);
  for (const auto& key : completed.keys_read()) cfg.field({std::string_view(key)});
  return std::move(built.value());
}

// The vision tower a vision_config describes (CLIP, SigLIP or SigLIP 2 by its model_type) under
// `prefix`; without vision_config, `fallback` (the wrapper's default tower) is read instead.
VitTower add_vision_from_config(ArchModel& m, const ConfigReader& r, const std::string& prefix, const char* fallback,
                                std::string* tower_name) {
  std::optional<ModelConfig> holder;
  const ConfigReader* v = nullptr;
  std::optional<ConfigReader> own;
  if (r.has_section("vision_config")) {
    own.emplace(r.section("vision_config"));
  } else {
    auto parsed = ModelConfig::parse(std::string("{\"vision_config\":") + fallback + "}", "defaults");
    if (!parsed) throw SpecError("internal: default vision config");
    holder = std::move(parsed.value());
    own.emplace(ConfigReader(*holder).section("vision_config"));
  }
  v = &*own;
  std::string type = "clip_vision_model";
  if (const Json* t = v->field({"model_type"}); t && t->is_string()) type = t->as_string();
  VitFlavour flavour = type == "siglip_vision_model" ? VitFlavour::Siglip
                       : type == "siglip2_vision_model" ? VitFlavour::Siglip2
                       : VitFlavour::Clip;
  if (flavour == VitFlavour::Clip && type != "clip_vision_model")
    throw SpecError("config.json: vision_config.model_type \"" + type + "\" is not a CLIP or SigLIP tower");
  // SiglipVisionModel builds its pooling head unless vision_use_head says otherwise, but the
  // multimodal checkpoints that leave the key out may not store it: then it is an optional part.
  bool head_said = v->field({"vision_use_head"}) != nullptr;
  VitTower t = read_vit_tower(*v, flavour, true);
  size_t first = m.tensors.size();
  add_vit_tower(m, prefix, t, flavour, true);
  if (t.head && !head_said)
    for (size_t i = first; i < m.tensors.size(); ++i)
      if (m.tensors[i].name.find(".head.") != std::string::npos) m.tensors[i].optional = m.tensors[i].optional_part = true;
  m.notes.push_back(describe_vit_tower(t, flavour));
  if (tower_name) *tower_name = flavour == VitFlavour::Clip ? "CLIP" : flavour == VitFlavour::Siglip ? "SigLIP" : "SigLIP 2";
  return t;
}

namespace {

// LlavaConfig's default tower: CLIP ViT-L/14 at 336 px.
constexpr const char* kLlavaVision =
    R"({"model_type":"clip_vision_model","hidden_size":1024,"intermediate_size":4096,"patch_size":14,"image_size":336,"num_hidden_layers":24,"num_attention_heads":16})";
// LlavaOnevisionConfig's default tower: SigLIP so400m/14 at 384 px without the pooling head.
constexpr const char* kOnevisionVision =
    R"({"model_type":"siglip_vision_model","hidden_size":1152,"intermediate_size":4304,"patch_size":14,"image_size":384,"num_hidden_layers":26,"num_attention_heads":16,"vision_use_head":false})";

Result<ArchModel> llava_like(const ModelConfig& cfg, const char* family, bool newline, const char* vision_default,
                             const char* text_default) {
  ArchModel m = nested_text_model(cfg, text_default, family);
  m.family = family;
  ConfigReader r(cfg);
  std::string tower;
  VitTower v = add_vision_from_config(m, r, "vision_tower.vision_model.", vision_default, &tower);
  uint64_t feature_layers = 1;
  if (const Json* f = cfg.root().find("vision_feature_layer"); f && f->is_array())
    feature_layers = std::max<size_t>(1, f->items().size());
  bool bias = true;
  if (const Json* b = cfg.root().find("multimodal_projector_bias"); b && b->is_bool()) bias = b->as_bool();
  uint64_t h = m.hidden_size;
  add_linear(m, "multi_modal_projector.linear_1", h, checked_product("vision hidden × feature layers", {v.hidden, feature_layers}),
             Role::Projector, -1, bias);
  add_linear(m, "multi_modal_projector.linear_2", h, h, Role::Projector, -1, bias);
  if (newline) add(m, "image_newline", {h}, Role::Projector);
  m.layer_summary += "; " + tower + " vision tower (" +
                     std::to_string(v.layers) + " layers) + 2-layer MLP projector" + (newline ? " + image_newline" : "");
  for (const char* f : {"image_token_index", "image_token_id", "video_token_index", "projector_hidden_act",
                        "vision_feature_layer", "vision_feature_select_strategy", "ignore_index", "image_grid_pinpoints",
                        "image_seq_length", "vision_aspect_ratio", "multimodal_projector_bias", "vocab_size"})
    m.structure_irrelevant_fields.emplace_back(f);
  return m;
}

}  // namespace

Result<ArchModel> llava_spec(const ModelConfig& cfg) { return llava_like(cfg, "llava", false, kLlavaVision, "llama"); }
Result<ArchModel> llava_next_spec(const ModelConfig& cfg) {
  return llava_like(cfg, "llava_next", true, kLlavaVision, "llama");
}
Result<ArchModel> llava_onevision_spec(const ModelConfig& cfg) {
  return llava_like(cfg, "llava_onevision", true, kOnevisionVision, "qwen2");
}

}  // namespace hfi::arch
