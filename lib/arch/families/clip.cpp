// Contrastive dual encoders: CLIP (clip), SigLIP (siglip) and SigLIP 2 NaFlex (siglip2), plus the
// vision transformer they share with the vision-language models built on them (clip_towers.hpp).
// Each is a text transformer and a vision transformer side by side, both bidirectional pre-norm
// encoders (layer_norm1, biased q/k/v/out_proj, layer_norm2, mlp.fc1/fc2), whose pooled outputs
// meet in one embedding space:
//  * CLIP: text_model (token + learned position embeddings, final_layer_norm; pooled at the EOS
//    token) and vision_model (conv patches without bias, a class token, pre_layrnorm and
//    post_layernorm; pooled at the class token), then bias-free visual_projection and
//    text_projection into projection_dim, and a rank-0 logit_scale (the Hub counts it as 0).
//  * SigLIP: no class token, no pre-norm, biased conv patches; the vision tower pools with a
//    multi-head attention "probe" head (head.*), the text tower through a biased Linear head into
//    projection_size; a sigmoid loss with logit_scale and logit_bias, both [1].
//  * SigLIP 2 NaFlex: SigLIP's layout with the patch embedding as a Linear over flattened
//    channel × patch × patch pixels and a num_patches-row position table resized per image.
// Names are the checkpoint's own ("text_model.", "vision_model.", at the root), which reconcile
// leaves as they are. The text tower is the token path: it holds the embeddings and the layers the
// FLOP and attention figures use; the vision tower is Role::Vision and the projections
// Role::Projector, so the report splits parameters by tower. Nothing is cached between passes
// (encoder_only).
#include <optional>

#include "arch/families/clip_towers.hpp"
#include "arch/families/families.hpp"

namespace hfi::arch {

namespace {

// Text towers attend over the whole sequence, capped at their position table.
AttentionLayer encoder_layer(uint64_t heads, uint64_t head_dim, uint64_t positions) {
  AttentionLayer a;
  a.kind = AttentionKind::Full;
  a.heads = a.kv_heads = static_cast<uint32_t>(heads);
  a.qk_dim = a.v_dim = static_cast<uint32_t>(head_dim);
  a.window = positions;
  return a;
}

// A reader over `key`, or over an empty object when the config leaves the section out (transformers
// then builds the section from its defaults). `holder` keeps the empty config alive.
ConfigReader section_or_defaults(const ConfigReader& r, const char* key, std::optional<ModelConfig>& holder) {
  if (r.has_section(key)) return r.section(key);
  auto empty = ModelConfig::parse(std::string("{\"") + key + "\":{}}", "defaults");
  if (!empty) throw SpecError("internal: default section");
  holder = std::move(empty.value());
  return ConfigReader(*holder).section(key);
}

struct TextDefaults {
  uint64_t vocab, hidden, inter, layers, heads, positions;
};
constexpr TextDefaults kClipText{49408, 512, 2048, 12, 8, 77};
constexpr TextDefaults kSiglipText{32000, 768, 3072, 12, 12, 64};

struct TextTower {
  uint64_t vocab = 0, hidden = 0, inter = 0, layers = 0, heads = 0, positions = 0;
};

TextTower read_text(const ConfigReader& t, const TextDefaults& def) {
  TextTower x;
  x.vocab = t.get({"vocab_size"}, def.vocab);
  x.hidden = t.get({"hidden_size"}, def.hidden);
  x.inter = t.get({"intermediate_size"}, def.inter);
  x.layers = t.get({"num_hidden_layers"}, def.layers);
  x.heads = t.get({"num_attention_heads"}, def.heads);
  x.positions = t.get({"max_position_embeddings"}, def.positions);
  if (x.vocab == 0 || x.hidden == 0 || x.inter == 0 || x.layers == 0 || x.heads == 0 || x.positions == 0)
    throw SpecError("config.json: text_config has a zero size");
  if (x.hidden % x.heads != 0) throw SpecError("config.json: text_config.hidden_size is not a multiple of num_attention_heads");
  return x;
}

// text_model.*: the token path of both dual encoders.
void add_text_tower(ArchModel& m, const TextTower& t, bool position_ids_buffer) {
  add(m, "text_model.embeddings.token_embedding.weight", {t.vocab, t.hidden}, Role::Embedding);
  add(m, "text_model.embeddings.position_embedding.weight", {t.positions, t.hidden}, Role::Embedding);
  if (position_ids_buffer) {
    add(m, "text_model.embeddings.position_ids", {1, t.positions}, Role::Buffer);
    m.tensors.back().optional = m.tensors.back().optional_part = true;
  }
  add_clip_encoder_layers(m, "text_model.encoder.layers.", t.layers, t.hidden, t.inter, Role::Attention, Role::Mlp,
                          Role::Norm, true);
  add_layernorm(m, "text_model.final_layer_norm", t.hidden, -1);
  for (uint64_t i = 0; i < t.layers; ++i) m.attention.push_back(encoder_layer(t.heads, t.hidden / t.heads, t.positions));
  m.vocab_size = t.vocab;
  m.hidden_size = t.hidden;
  m.encoder_only = true;
  m.prefix_anchor = "token_embedding.weight";
}

// `default_act`: the config class's hidden_act when text_config leaves it out.
void describe(ArchModel& m, const TextTower& t, const ConfigReader& text, std::string_view default_act, const std::string& what) {
  AttentionDims d;
  d.hidden = t.hidden;
  d.heads = d.kv_heads = t.heads;
  d.head_dim = t.hidden / t.heads;
  d.qkv_bias = d.o_bias = true;
  m.attention_summary = describe_attention(d) + ", bidirectional (text tower)";
  m.position_summary = "learned absolute positions, " + std::to_string(t.positions) + " text tokens";
  m.norm_summary = "LayerNorm before each sublayer (pre-LN)";
  m.activation_summary = describe_activation(text, false, default_act);
  m.layer_summary = std::to_string(t.layers) + " × (bidirectional attention + dense MLP) text encoder; " + what;
}

Result<ArchModel> siglip_like(const ModelConfig& cfg, const char* family, VitFlavour flavour) {
  ConfigReader r(cfg);
  std::optional<ModelConfig> text_holder, vision_holder;
  ConfigReader text = section_or_defaults(r, "text_config", text_holder);
  ConfigReader vision = section_or_defaults(r, "vision_config", vision_holder);
  TextTower t = read_text(text, kSiglipText);
  ArchModel m;
  m.family = family;
  add_text_tower(m, t, false);
  // The text head maps the last token's state into projection_size (the hidden size by default).
  uint64_t projection = text.get({"projection_size"}, t.hidden);
  add_linear(m, "text_model.head", projection, t.hidden, Role::Projector);
  VitTower v = read_vit_tower(vision, flavour, true);
  add_vit_tower(m, "vision_model.", v, flavour, false);
  add(m, "logit_scale", {1}, Role::Other);
  add(m, "logit_bias", {1}, Role::Other);
  describe(m, t, text, "gelu_pytorch_tanh", describe_vit_tower(v, flavour) + "; sigmoid contrastive head (logit_scale, logit_bias)");
  m.notes.push_back(describe_vit_tower(v, flavour));
  m.structure_irrelevant_fields = {"initializer_factor", "logit_scale_init_value", "logit_bias_init_value"};
  return m;
}

}  // namespace

void add_clip_encoder_layers(ArchModel& m, const std::string& prefix, uint64_t layers, uint64_t hidden,
                             uint64_t inter, Role attention, Role mlp, Role norm, bool layer_index) {
  for (uint64_t i = 0; i < layers; ++i) {
    int l = layer_index ? static_cast<int>(i) : -1;
    std::string p = prefix + std::to_string(i) + ".";
    for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
      add_linear(m, p + "self_attn." + proj, hidden, hidden, attention, l);
    add_layernorm(m, p + "layer_norm1", hidden, l, true, norm);
    add_linear(m, p + "mlp.fc1", inter, hidden, mlp, l);
    add_linear(m, p + "mlp.fc2", hidden, inter, mlp, l);
    add_layernorm(m, p + "layer_norm2", hidden, l, true, norm);
  }
}

uint64_t patch_grid(uint64_t image, uint64_t patch) {
  if (patch == 0 || image < patch) throw SpecError("config.json: vision_config.image_size is smaller than one patch_size");
  return checked_product("(image_size // patch_size)²", {image / patch, image / patch});
}

VitTower read_vit_tower(const ConfigReader& v, VitFlavour flavour, bool head_default) {
  // CLIPVisionConfig: ViT-B/32; SiglipVisionConfig and Siglip2VisionConfig: ViT-B/16.
  VitTower t;
  t.hidden = v.get({"hidden_size"}, 768);
  t.inter = v.get({"intermediate_size"}, 3072);
  t.layers = v.get({"num_hidden_layers"}, 12);
  t.heads = v.get({"num_attention_heads"}, 12);
  t.channels = v.get({"num_channels"}, 3);
  t.patch = v.get({"patch_size"}, flavour == VitFlavour::Clip ? 32 : 16);
  if (t.hidden == 0 || t.inter == 0 || t.layers == 0 || t.heads == 0 || t.patch == 0 || t.channels == 0)
    throw SpecError("config.json: a vision tower size (hidden_size, intermediate_size, num_hidden_layers, num_attention_heads, "
                    "patch_size or num_channels) is 0");
  if (flavour == VitFlavour::Siglip2) {
    t.positions = v.get({"num_patches"}, 256);
  } else {
    t.image = v.get({"image_size"}, 224);
    t.positions = patch_grid(t.image, t.patch);
    if (flavour == VitFlavour::Clip) t.positions += 1;  // the class token's position
  }
  t.head = flavour != VitFlavour::Clip && v.flag({"vision_use_head"}, head_default);
  return t;
}

void add_vit_tower(ArchModel& m, const std::string& prefix, const VitTower& t, VitFlavour flavour,
                   bool position_ids_buffer) {
  const std::string e = prefix + "embeddings.";
  const uint64_t h = t.hidden;
  if (flavour == VitFlavour::Clip) add(m, e + "class_embedding", {h}, Role::Vision);
  if (flavour == VitFlavour::Siglip2) {
    add_linear(m, e + "patch_embedding", h, checked_product("num_channels × patch_size²", {t.channels, t.patch, t.patch}),
               Role::Vision);
  } else {
    add(m, e + "patch_embedding.weight", {h, t.channels, t.patch, t.patch}, Role::Vision);
    if (flavour == VitFlavour::Siglip) add(m, e + "patch_embedding.bias", {h}, Role::Vision);
  }
  add(m, e + "position_embedding.weight", {t.positions, h}, Role::Vision);
  if (position_ids_buffer) {
    add(m, e + "position_ids", {1, t.positions}, Role::Buffer);
    m.tensors.back().optional = m.tensors.back().optional_part = true;
  }
  // CLIP's pre-norm keeps the historical misspelling.
  if (flavour == VitFlavour::Clip) add_layernorm(m, prefix + "pre_layrnorm", h, -1, true, Role::Vision);
  add_clip_encoder_layers(m, prefix + "encoder.layers.", t.layers, h, t.inter, Role::Vision, Role::Vision, Role::Vision,
                          false);
  add_layernorm(m, prefix + "post_layernorm", h, -1, true, Role::Vision);
  if (t.head) {
    // nn.MultiheadAttention keeps q/k/v packed in in_proj_*; a learned probe is the only query.
    const std::string p = prefix + "head.";
    add(m, p + "probe", {1, 1, h}, Role::Vision);
    add(m, p + "attention.in_proj_weight", {3 * h, h}, Role::Vision);
    add(m, p + "attention.in_proj_bias", {3 * h}, Role::Vision);
    add_linear(m, p + "attention.out_proj", h, h, Role::Vision);
    add_layernorm(m, p + "layernorm", h, -1, true, Role::Vision);
    add_linear(m, p + "mlp.fc1", t.inter, h, Role::Vision);
    add_linear(m, p + "mlp.fc2", h, t.inter, Role::Vision);
  }
}

std::string describe_vit_tower(const VitTower& t, VitFlavour flavour) {
  const char* name = flavour == VitFlavour::Clip ? "CLIP ViT" : flavour == VitFlavour::Siglip ? "SigLIP ViT" : "SigLIP 2 NaFlex ViT";
  std::string out = std::string("vision tower: ") + name + ", " + std::to_string(t.layers) + " layers × " +
                    std::to_string(t.hidden) + ", " + std::to_string(t.heads) + " heads, MLP " + std::to_string(t.inter) + "; ";
  if (flavour == VitFlavour::Siglip2)
    out += "up to " + std::to_string(t.positions) + " patches of " + std::to_string(t.patch) + "px";
  else
    out += std::to_string(t.image) + "px images in " + std::to_string(t.patch) + "px patches (" + std::to_string(t.positions) +
           " positions)";
  if (t.head) out += ", attention-pooling head";
  return out;
}

namespace {

// A vision tower that is the whole model: its patches are the tokens the per-token figures count
// (each layer attends over all of them), its position and class tables are embeddings (added, not
// multiplied), and SigLIP's pooling head runs its one learned query once per image, so only the
// key and value thirds of its in_proj run per patch.
void as_image_model(ArchModel& m, const VitTower& v, VitFlavour flavour, const ConfigReader& vision, const std::string& what) {
  if (v.hidden % v.heads != 0) throw SpecError("config.json: the vision hidden_size is not a multiple of num_attention_heads");
  m.encoder_only = true;
  m.tokens_are_image_patches = true;
  m.hidden_size = v.hidden;
  for (uint64_t i = 0; i < v.layers; ++i) m.attention.push_back(encoder_layer(v.heads, v.hidden / v.heads, v.positions));
  for (auto& t : m.tensors) {
    if (t.name.ends_with("embeddings.position_embedding.weight") || t.name.ends_with("embeddings.class_embedding"))
      t.role = Role::Embedding;
    if (t.name.find(".head.") == std::string::npos) continue;
    bool keys_and_values = t.name.ends_with("in_proj_weight") || t.name.ends_with("in_proj_bias");
    t.active_num = keys_and_values ? 2 : 0;
    t.active_den = keys_and_values ? 3 : 1;
  }
  AttentionDims d;
  d.hidden = v.hidden;
  d.heads = d.kv_heads = v.heads;
  d.head_dim = v.hidden / v.heads;
  d.qkv_bias = d.o_bias = true;
  m.attention_summary = describe_attention(d) + ", bidirectional (vision tower; there is no text tower)";
  m.position_summary = "learned absolute positions, " + std::to_string(v.positions) + " image positions";
  m.norm_summary = "LayerNorm before each sublayer (pre-LN)";
  m.activation_summary = describe_activation(vision, false, flavour == VitFlavour::Clip ? "quick_gelu" : "gelu_pytorch_tanh");
  m.layer_summary = describe_vit_tower(v, flavour) + what;
  std::string image = flavour == VitFlavour::Siglip2 ? "an image of up to " + std::to_string(v.positions) + " patches"
                                                      : "one " + std::to_string(v.image) + "px image";
  m.notes.push_back("a token here is an image patch: " + image + " is " + std::to_string(v.positions) +
                    " tokens, every one through every layer" + (v.head ? "; the pooling head's query, output and MLP run once per image" : ""));
}

uint64_t clip_projection_dim(const ModelConfig& cfg) {
  // projection_dim is CLIPConfig's own (the towers' copies are ignored by CLIPModel).
  const Json* pd = cfg.root().find("projection_dim");
  uint64_t projection = pd && pd->is_number() ? pd->as_uint().value_or(512) : 512;
  if (projection == 0) throw SpecError("config.json: projection_dim is 0");
  return projection;
}

// diffusers' StableDiffusionSafetyChecker: a CLIPConfig whose model keeps only the vision side (a
// CLIPVisionModel, hence vision_model twice in the names), its projection, and the fixed concept
// embeddings and thresholds the generated image is compared with. No text tower is stored.
ArchModel safety_checker(const ModelConfig& cfg, ConfigReader& r) {
  std::optional<ModelConfig> vision_holder;
  ConfigReader vision = section_or_defaults(r, "vision_config", vision_holder);
  VitTower v = read_vit_tower(vision, VitFlavour::Clip, false);
  const uint64_t projection = clip_projection_dim(cfg);
  ArchModel m;
  m.family = "clip";
  add_vit_tower(m, "vision_model.vision_model.", v, VitFlavour::Clip, true);
  add_linear(m, "visual_projection", projection, v.hidden, Role::Projector, -1, false);
  add(m, "concept_embeds", {17, projection}, Role::Other);
  add(m, "special_care_embeds", {3, projection}, Role::Other);
  add(m, "concept_embeds_weights", {17}, Role::Other);
  add(m, "special_care_embeds_weights", {3}, Role::Other);
  // Compared with the pooled image embedding, once per image.
  for (size_t i = m.tensors.size() - 4; i < m.tensors.size(); ++i) m.tensors[i].active_num = 0;
  as_image_model(m, v, VitFlavour::Clip, vision,
                 "; projection into " + std::to_string(projection) + ", compared with 17 + 3 fixed concept embeddings");
  // The text side of its CLIPConfig (text_config, and the copies at the top) builds nothing.
  m.structure_irrelevant_fields = {"initializer_factor", "logit_scale_init_value", "projection_dim", "text_config",
                                   "text_config_dict", "vision_config_dict", "hidden_size", "intermediate_size",
                                   "num_attention_heads", "num_hidden_layers", "vocab_size"};
  return m;
}

}  // namespace

Result<ArchModel> clip_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  for (const std::string& cls : cfg.architectures())
    if (cls == "StableDiffusionSafetyChecker") return safety_checker(cfg, r);
  std::optional<ModelConfig> text_holder, vision_holder;
  ConfigReader text = section_or_defaults(r, "text_config", text_holder);
  ConfigReader vision = section_or_defaults(r, "vision_config", vision_holder);
  TextTower t = read_text(text, kClipText);
  ArchModel m;
  m.family = "clip";
  add_text_tower(m, t, true);
  VitTower v = read_vit_tower(vision, VitFlavour::Clip, false);
  add_vit_tower(m, "vision_model.", v, VitFlavour::Clip, true);
  const uint64_t projection = clip_projection_dim(cfg);
  add_linear(m, "visual_projection", projection, v.hidden, Role::Projector, -1, false);
  add_linear(m, "text_projection", projection, t.hidden, Role::Projector, -1, false);
  add(m, "logit_scale", {}, Role::Other);  // rank 0: nn.Parameter(torch.tensor(init))
  describe(m, t, text, "quick_gelu", describe_vit_tower(v, VitFlavour::Clip) + "; projections into " + std::to_string(projection));
  m.notes.push_back(describe_vit_tower(v, VitFlavour::Clip));
  m.structure_irrelevant_fields = {"initializer_factor", "logit_scale_init_value", "projection_dim",
                                   "text_config_dict", "vision_config_dict"};
  return m;
}

namespace {

// The bias-free `name` [projection_dim, hidden] a *WithProjection class `cls` adds; its summary
// ("; projection into N"), or "" for the plain class.
std::string add_tower_projection(ArchModel& m, const ConfigReader& r, const char* cls, const char* name, uint64_t hidden) {
  if (!architecture_has(r, cls)) return "";
  uint64_t projection = r.get({"projection_dim"}, 512);
  add_linear(m, name, projection, hidden, Role::Projector, -1, false);
  return "; projection into " + std::to_string(projection);
}

}  // namespace

// The towers alone, as pipelines and adapters load them (a diffusers text_encoder or
// image_encoder, an IP-Adapter's image encoder): the config is the tower's own, at the root, and
// the names keep their "text_model." / "vision_model." prefix. The WithProjection classes add the
// bias-free projection into projection_dim.
Result<ArchModel> clip_text_model_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  TextTower t = read_text(r, kClipText);
  ArchModel m;
  m.family = "clip";
  add_text_tower(m, t, true);
  describe(m, t, r, "quick_gelu", "a text tower alone" + add_tower_projection(m, r, "CLIPTextModelWithProjection", "text_projection", t.hidden));
  m.structure_irrelevant_fields = {"initializer_factor"};
  return m;
}

Result<ArchModel> clip_vision_model_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  VitTower v = read_vit_tower(r, VitFlavour::Clip, false);
  ArchModel m;
  m.family = "clip";
  add_vit_tower(m, "vision_model.", v, VitFlavour::Clip, true);
  as_image_model(m, v, VitFlavour::Clip, r, add_tower_projection(m, r, "CLIPVisionModelWithProjection", "visual_projection", v.hidden));
  m.structure_irrelevant_fields = {"initializer_factor"};
  return m;
}

Result<ArchModel> siglip_vision_model_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  VitTower v = read_vit_tower(r, VitFlavour::Siglip, true);
  ArchModel m;
  m.family = "siglip";
  add_vit_tower(m, "vision_model.", v, VitFlavour::Siglip, false);
  as_image_model(m, v, VitFlavour::Siglip, r, "");
  return m;
}

Result<ArchModel> siglip_spec(const ModelConfig& cfg) { return siglip_like(cfg, "siglip", VitFlavour::Siglip); }
Result<ArchModel> siglip2_spec(const ModelConfig& cfg) { return siglip_like(cfg, "siglip2", VitFlavour::Siglip2); }

}  // namespace hfi::arch
