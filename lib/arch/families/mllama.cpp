// Llama 3.2 Vision (mllama: MllamaForConditionalGeneration, Llama-3.2-11B/90B-Vision). Unlike the
// LLaVA-style models, the image never enters the token sequence: a vision model turns each image
// (up to max_num_tiles tiles) into a fixed set of features that a few gated cross-attention layers
// of the text decoder read.
//  * vision_model.*: a conv patch embedding without bias, a class embedding, a gated positional
//    embedding (position table [patches+1, Hv], gate, and a per-aspect-ratio tile table),
//    gated pre- and post-tile aspect-ratio embeddings, layernorm_pre/post, a local transformer of
//    num_hidden_layers and a global transformer of num_global_layers whose layers add tanh gates
//    gate_attn / gate_ffn. Layers: bias-free q/k/v/o, biased fc1/fc2 GELU MLP, LayerNorms with bias.
//    The output concatenates the last state with intermediate_layers_indices' states
//    (vision_output_dim = Hv × (1 + those layers)).
//  * multi_modal_projector: one biased Linear [H, vision_output_dim].
//  * the text model: a Llama decoder (the llama pieces: add_attention_sublayer, add_swiglu) whose
//    layers listed in text_config.cross_attention_layers are cross-attention layers instead: no
//    self-attention, cross_attn.{q,k,v,o}_proj with per-head RMSNorms q_norm/k_norm, and tanh gates
//    cross_attn_attn_gate / cross_attn_mlp_gate on the two residual branches. embed_tokens holds
//    vocab_size + 8 rows (the <|image|> token and padding rows); the head stays vocab_size rows.
// dense_decoder is not called because the layer stack itself differs (a layer is one kind or the
// other); the pieces it is made of are.
//
// KV cache, as for the encoder-decoders (whisper.cpp, m2m100.cpp): only the self-attention layers
// grow a cache with the context. The cross-attention layers' keys and values are computed once per
// image from its max_num_tiles × (patches + 1) vision tokens and do not grow: those layers carry no
// per-token cache here, and a note gives their size per image.
//
// Writers before transformers 4.52 store "language_model.model.*", "language_model.lm_head.*",
// "vision_model.*" and "multi_modal_projector.*" at the root (the Llama 3.2 Vision uploads); later
// ones "model.language_model.*" beside "model.vision_model.*" and "lm_head.*". Reconcile finds the
// language-model prefix through embed_tokens and puts the towers beside it.
#include <algorithm>
#include <optional>
#include <set>

#include "arch/families/families.hpp"

namespace hfi::arch {
namespace {

// MllamaTextConfig's default cross-attention layers (the 11B model's).
constexpr uint64_t kDefaultCrossLayers[] = {3, 8, 13, 18, 23, 28, 33, 38};
// MllamaVisionConfig's default supported_aspect_ratios has 8 entries (for max_num_tiles 4), and
// intermediate_layers_indices 5.
constexpr uint64_t kDefaultAspectRatios = 8;

struct MllamaVision {
  uint64_t hidden = 0, heads = 0, inter = 0, layers = 0, global_layers = 0, channels = 0, patch = 0, image = 0,
           tiles = 0, output_dim = 0, ratios = 0, intermediate_taps = 0;
  uint64_t patches() const { return (image / patch) * (image / patch) + 1; }  // + the class token
};

// Length of the array `key` of reader `v`, or `fallback` when absent or null.
uint64_t array_length(const ConfigReader& v, std::string_view key, uint64_t fallback) {
  const Json* f = v.field({key});
  if (!f || f->is_null()) return fallback;
  if (!f->is_array()) throw SpecError("config.json: vision_config." + std::string(key) + " is not a list");
  return f->items().size();
}

MllamaVision read_vision(const ConfigReader& v) {
  MllamaVision t;
  // MllamaVisionConfig defaults (the 11B/90B tower, except image_size: the released checkpoints say 560).
  t.hidden = v.get({"hidden_size"}, 1280);
  // The config stores the head count as "attention_heads" (the constructor's num_attention_heads).
  t.heads = v.get({"attention_heads", "num_attention_heads"}, 16);
  t.inter = v.get({"intermediate_size"}, 5120);
  t.layers = v.get({"num_hidden_layers"}, 32);
  t.global_layers = v.get({"num_global_layers"}, 8);
  t.channels = v.get({"num_channels"}, 3);
  t.patch = v.get({"patch_size"}, 14);
  t.image = v.get({"image_size"}, 448);
  t.tiles = v.get({"max_num_tiles"}, 4);
  t.output_dim = v.get({"vision_output_dim"}, 7680);
  t.ratios = array_length(v, "supported_aspect_ratios", kDefaultAspectRatios);
  t.intermediate_taps = array_length(v, "intermediate_layers_indices", 5);
  if (t.heads == 0 || t.hidden % t.heads) throw SpecError("config.json: vision_config.hidden_size is not a multiple of attention_heads");
  if (t.patch == 0 || t.image < t.patch) throw SpecError("config.json: vision_config.image_size is smaller than patch_size");
  if (t.tiles == 0 || t.ratios == 0) throw SpecError("config.json: vision_config has no tiles or aspect ratios");
  return t;
}

void add_vision_layer(ArchModel& m, const std::string& p, const MllamaVision& t, bool gated) {
  for (const char* proj : {"q_proj", "k_proj", "v_proj", "o_proj"})
    add_linear(m, p + "self_attn." + proj, t.hidden, t.hidden, Role::Vision, -1, false);
  add_linear(m, p + "mlp.fc1", t.inter, t.hidden, Role::Vision);
  add_linear(m, p + "mlp.fc2", t.hidden, t.inter, Role::Vision);
  add_layernorm(m, p + "input_layernorm", t.hidden, -1, true, Role::Vision);
  add_layernorm(m, p + "post_attention_layernorm", t.hidden, -1, true, Role::Vision);
  if (gated) {
    add(m, p + "gate_attn", {1}, Role::Vision);
    add(m, p + "gate_ffn", {1}, Role::Vision);
  }
}

void add_vision_model(ArchModel& m, const MllamaVision& t) {
  const std::string p = "vision_model.";
  const uint64_t rows = t.ratios + 1;  // aspect-ratio id 0 is padding
  add(m, p + "patch_embedding.weight", {t.hidden, t.channels, t.patch, t.patch}, Role::Vision);
  add(m, p + "class_embedding", {t.hidden}, Role::Vision);
  add(m, p + "gated_positional_embedding.embedding", {t.patches(), t.hidden}, Role::Vision);
  add(m, p + "gated_positional_embedding.gate", {1}, Role::Vision);
  add(m, p + "gated_positional_embedding.tile_embedding.weight",
      {rows, checked_product("vision max_num_tiles × patches × hidden_size", {t.tiles, t.patches(), t.hidden})}, Role::Vision);
  for (const char* tile : {"pre_tile_positional_embedding.", "post_tile_positional_embedding."}) {
    add(m, p + tile + "embedding.weight", {rows, checked_product("vision max_num_tiles × hidden_size", {t.tiles, t.hidden})},
        Role::Vision);
    add(m, p + tile + "gate", {1}, Role::Vision);
  }
  add_layernorm(m, p + "layernorm_pre", t.hidden, -1, true, Role::Vision);
  add_layernorm(m, p + "layernorm_post", t.hidden, -1, true, Role::Vision);
  for (uint64_t i = 0; i < t.layers; ++i) add_vision_layer(m, layer_prefix("vision_model.transformer.layers.", i), t, false);
  for (uint64_t i = 0; i < t.global_layers; ++i)
    add_vision_layer(m, layer_prefix("vision_model.global_transformer.layers.", i), t, true);
}

// A cross-attention layer's keys and values come from the vision features, once per image: its
// k_proj, v_proj and k_norm do no work for a text token, so they sit outside the active count and
// the FLOPs per token (as Gemma 3n's unused KV weights do).
void mark_image_side(ArchModel& m, size_t first) {
  for (size_t t = first; t < m.tensors.size(); ++t) {
    const std::string& n = m.tensors[t].name;
    if (n.ends_with("k_proj.weight") || n.ends_with("v_proj.weight") || n.ends_with("k_norm.weight"))
      m.tensors[t].active_num = 0;
  }
}

// text_config.cross_attention_layers, or MllamaTextConfig's default list.
std::set<uint64_t> cross_layers(const ConfigReader& r, uint64_t layers) {
  std::set<uint64_t> out;
  const Json* f = r.field({"cross_attention_layers"});
  if (!f || f->is_null()) {
    out.insert(std::begin(kDefaultCrossLayers), std::end(kDefaultCrossLayers));
  } else {
    if (!f->is_array()) throw SpecError("config.json: cross_attention_layers is not a list");
    for (const Json& item : f->items()) {
      std::optional<int64_t> v = item.as_int();
      if (!v || *v < 0) throw SpecError("config.json: cross_attention_layers holds a value that is not a layer index");
      out.insert(static_cast<uint64_t>(*v));
    }
  }
  if (!out.empty() && *out.rbegin() >= layers)
    throw SpecError("config.json: cross_attention_layers names layer " + std::to_string(*out.rbegin()) + " of a " +
                    std::to_string(layers) + "-layer text model");
  return out;
}

}  // namespace

Result<ArchModel> mllama_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);  // the text model's level (text_config), then the root
  ArchModel m;
  m.family = "mllama";
  AttentionDims d = read_attention_dims(r);  // head_dim = hidden / heads, as mllama's attention has it
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t vocab = r.need({"vocab_size"});
  bool tied = r.flag({"tie_word_embeddings"}, false);
  std::set<uint64_t> cross = cross_layers(r, layers);

  // The vision tower: vision_config, or MllamaVisionConfig's defaults when absent.
  std::optional<ModelConfig> defaults;
  std::optional<ConfigReader> vr;
  if (r.has_section("vision_config")) {
    vr.emplace(r.section("vision_config"));
  } else {
    auto parsed = ModelConfig::parse(R"({"vision_config":{}})", "defaults");
    if (!parsed) throw SpecError("internal: default vision config");
    defaults = std::move(parsed.value());
    vr.emplace(ConfigReader(*defaults).section("vision_config"));
  }
  MllamaVision v = read_vision(*vr);

  reserve_layers(m, layers + v.layers + v.global_layers, 16);
  // vocab_size + 8 embedding rows; the head keeps vocab_size.
  add(m, "model.embed_tokens.weight", {checked_sum("vocab_size + 8", {vocab, 8}), d.hidden}, Role::Embedding);
  AttentionDims cd = d;
  cd.qk_norm = true;  // cross_attn.q_norm / k_norm [head_dim]
  AttentionLayer none;
  none.kind = AttentionKind::None;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = layer_prefix("model.layers.", i);
    if (cross.count(i)) {
      size_t first = m.tensors.size();
      add_gqa_attention(m, p + "cross_attn.", l, cd);
      mark_image_side(m, first);
      add(m, p + "input_layernorm.weight", {d.hidden}, Role::Norm, l);
      add(m, p + "cross_attn_attn_gate", {1}, Role::Attention, l);
      add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp);
      add(m, p + "post_attention_layernorm.weight", {d.hidden}, Role::Norm, l);
      add(m, p + "cross_attn_mlp_gate", {1}, Role::Mlp, l);
      m.attention.push_back(none);  // keys/values from the image, not the context
    } else {
      add_attention_sublayer(m, p, l, d);
      add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp);
      m.attention.push_back(attention_layer(d));
    }
  }
  add(m, "model.norm.weight", {d.hidden}, Role::Norm);
  add_lm_head(m, "lm_head", vocab, d.hidden, tied);

  add_vision_model(m, v);
  add_linear(m, "multi_modal_projector", d.hidden, v.output_dim, Role::Projector);

  const uint64_t self_layers = layers - cross.size();
  const uint64_t image_tokens = checked_product("max_num_tiles × patches", {v.tiles, v.patches()});
  m.attention_summary = describe_attention(d) + "; " + std::to_string(cross.size()) +
                        " of them cross-attention to the image (q/k RMSNorm, tanh-gated)";
  m.position_summary = describe_rope(r);
  m.norm_summary = "RMSNorm (text), LayerNorm with bias (vision)";
  m.activation_summary = describe_activation(r, true) + "; vision: GELU fc1/fc2";
  m.layer_summary = std::to_string(layers) + " text layers (" + std::to_string(self_layers) + " self-attention + " +
                    std::to_string(cross.size()) + " gated cross-attention, each with a SwiGLU MLP); vision: " +
                    std::to_string(v.layers) + " local + " + std::to_string(v.global_layers) + " gated global layers (" +
                    std::to_string(v.tiles) + " tiles × " + std::to_string(v.patches()) + " tokens) + linear projector";
  if (v.output_dim != checked_product("vision hidden × taps", {v.hidden, v.intermediate_taps + 1}))
    m.notes.push_back("vision_output_dim " + std::to_string(v.output_dim) + " is not hidden_size × (1 + intermediate layers) = " +
                      std::to_string(v.hidden * (v.intermediate_taps + 1)));
  m.notes.push_back("the vision model runs once per image (up to " + std::to_string(v.tiles) + " tiles of " +
                    std::to_string(v.image) + " px), not per generated token: its weights are role vision, outside the active count");
  m.notes.push_back("the KV cache counts the " + std::to_string(self_layers) +
                    " self-attention layers, which grow with the context; the cross-attention keys and values (2 × " +
                    std::to_string(cross.size()) + " layers × " + std::to_string(d.kv_heads * d.head_dim) + " × " +
                    std::to_string(image_tokens) + " vision tokens per image) are computed once per image and come on top");
  // Dropout, the image placeholder token id and the vision tower's activation, epsilon and
  // initialiser: no tensors, no per-token cost.
  m.structure_irrelevant_fields = {"dropout", "image_token_index", "cross_attention_hidden_size"};
  return m;
}

}  // namespace hfi::arch
