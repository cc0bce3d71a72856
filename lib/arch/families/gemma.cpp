// Google Gemma 1, 2 and 3 (gemma, gemma2, gemma3_text, gemma3). What sets them apart from Llama:
// a gated-GELU MLP (GeGLU; the tensors are the same gate/up/down triple), embeddings scaled by
// sqrt(hidden) and tied to the head by default, wide heads (head_dim 256 regardless of hidden/heads).
// Gemma 2 adds a norm after attention and a pair around the MLP (four RMSNorms per layer) and
// alternates sliding-window and global layers; its logit soft-capping and query_pre_attn_scalar are
// scalars without tensors. Gemma 3 adds per-head QK-norm, five sliding layers per global one, a
// separate RoPE base for the sliding layers, and (model_type gemma3) a SigLIP vision tower whose
// patch embeddings an RMS-normed linear projector maps into the text width.
//
// Config fields a checkpoint leaves out take transformers' defaults for that family, so that
// minimal configs such as google/gemma-3-4b-it's (text_config gives only 6 fields) are read as
// transformers reads them.
#include <cstdio>

#include "arch/families/clip_towers.hpp"
#include "arch/families/families.hpp"

namespace hfi::arch {

namespace {

// Defaults of GemmaConfig / Gemma2Config / Gemma3TextConfig in transformers.
struct GemmaDefaults {
  uint64_t vocab, hidden, inter, layers, heads, kv_heads, head_dim;
};
constexpr GemmaDefaults kGemma1{256000, 3072, 24576, 28, 16, 16, 256};
constexpr GemmaDefaults kGemma2{256000, 2304, 9216, 26, 8, 4, 256};
constexpr GemmaDefaults kGemma3{262208, 2304, 9216, 26, 8, 4, 256};

// Fields Gemma configs carry that change neither the tensors nor the per-token cost: generation
// settings, logit soft-capping and attention-score scaling (scalars applied to existing values).
const std::vector<std::string> kIrrelevant = {
    "attn_logit_softcapping", "final_logit_softcapping", "query_pre_attn_scalar", "cache_implementation",
    "boi_token_index", "eoi_token_index", "image_token_index"};

struct GemmaText {
  AttentionDims d;
  uint64_t layers = 0, inter = 0, vocab = 0;
  bool tied = true;
};

GemmaText read_text(const ConfigReader& r, const GemmaDefaults& def, bool qk_norm) {
  GemmaText t;
  t.d.hidden = r.get({"hidden_size"}, def.hidden);
  t.d.heads = r.get({"num_attention_heads"}, def.heads);
  t.d.kv_heads = r.get({"num_key_value_heads"}, def.kv_heads);
  t.d.head_dim = r.get({"head_dim"}, def.head_dim);
  if (t.d.hidden == 0 || t.d.heads == 0 || t.d.kv_heads == 0 || t.d.head_dim == 0)
    throw SpecError("config.json: hidden_size, attention heads and head_dim must be positive");
  bool bias = r.flag({"attention_bias"}, false);
  t.d.qkv_bias = t.d.o_bias = bias;
  t.d.qk_norm = qk_norm;
  t.layers = r.get({"num_hidden_layers"}, def.layers);
  t.inter = r.get({"intermediate_size"}, def.inter);
  t.vocab = r.get({"vocab_size"}, def.vocab);
  if (t.layers == 0 || t.inter == 0 || t.vocab == 0)
    throw SpecError("config.json: num_hidden_layers, intermediate_size and vocab_size must be positive");
  t.tied = r.flag({"tie_word_embeddings"}, true);
  return t;
}

// Tensors of the decoder stack. `sandwich`: Gemma 2/3's post-attention, pre- and post-feed-forward
// norms; without it post_attention_layernorm is the pre-MLP norm (Gemma 1, Llama-style).
void add_decoder(ArchModel& m, const GemmaText& t, bool sandwich) {
  add_embeddings(m, t.vocab, t.d.hidden, t.tied);
  for (uint64_t i = 0; i < t.layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_attention_sublayer(m, p, l, t.d);
    if (sandwich) {
      add(m, p + "pre_feedforward_layernorm.weight", {t.d.hidden}, Role::Norm, l);
      add(m, p + "post_feedforward_layernorm.weight", {t.d.hidden}, Role::Norm, l);
    }
    add_swiglu(m, p + "mlp.", l, t.d.hidden, t.inter, Role::Mlp);
  }
}

// layer_types when the config lists them (checked against the layer count), else `fallback`.
std::vector<AttentionKind> layer_kinds(const ConfigReader& r, uint64_t layers,
                                       const std::vector<AttentionKind>& fallback) {
  const Json* types = r.field({"layer_types"});
  if (!types || !types->is_array()) return fallback;
  return attention_kinds(r, layers);
}

void add_layers(ArchModel& m, const GemmaText& t, const std::vector<AttentionKind>& kinds, uint64_t window) {
  for (auto kind : kinds) {
    bool sliding = kind == AttentionKind::Sliding && window > 0;
    m.attention.push_back(attention_layer(t.d, sliding ? AttentionKind::Sliding : AttentionKind::Full, sliding ? window : 0));
  }
}

std::string activation(const ConfigReader& r) {
  // Gemma 1 configs say hidden_act "gelu", but transformers runs the tanh approximation unless
  // hidden_activation says otherwise; Gemma 2/3 name only hidden_activation.
  const Json* a = r.field({"hidden_activation"});
  std::string act = a && a->is_string() ? a->as_string() : "gelu_pytorch_tanh";
  return act + " (gated: GeGLU)";
}

std::string layer_mix(const ArchModel& m, uint64_t window, const std::string& what) {
  size_t sliding = 0;
  for (const auto& a : m.attention) sliding += a.kind == AttentionKind::Sliding;
  std::string out = std::to_string(m.attention.size()) + " × (attention + " + what + ")";
  if (sliding > 0)
    out += ", " + std::to_string(sliding) + " sliding-window (" + std::to_string(window) + " tokens) + " +
           std::to_string(m.attention.size() - sliding) + " global";
  return out;
}

ArchModel text_model(const ConfigReader& r, const char* family, int generation) {
  const GemmaDefaults& def = generation == 1 ? kGemma1 : generation == 2 ? kGemma2 : kGemma3;
  GemmaText t = read_text(r, def, generation >= 3);
  ArchModel m;
  m.family = family;
  add_decoder(m, t, generation >= 2);
  m.structure_irrelevant_fields = kIrrelevant;
  m.attention_summary = describe_attention(t.d);
  m.norm_summary = generation == 1 ? "RMSNorm (1 + weight)" : "RMSNorm (1 + weight), 4 per layer (sandwich)";
  m.activation_summary = activation(r);

  uint64_t window = 0;
  std::vector<AttentionKind> fallback(t.layers, AttentionKind::Full);
  if (generation == 2) {
    // Gemma 2: even layers (0, 2, ...) slide, odd ones are global. Early configs also wrote the
    // window as sliding_window_size.
    window = r.get({"sliding_window", "sliding_window_size"}, 4096);
    r.field({"sliding_window_size"});  // the duplicate is read too, so it is not reported as unknown
    for (uint64_t i = 0; i < t.layers; i += 2) fallback[i] = AttentionKind::Sliding;
  } else if (generation == 3) {
    window = r.get({"sliding_window"}, 4096);
    // EmbeddingGemma attends both ways; transformers turns the span into an exclusive bound.
    if (r.flag({"use_bidirectional_attention"}, false)) window = window / 2 + 1;
    uint64_t pattern = r.get({"sliding_window_pattern"}, 6);
    if (pattern == 0) throw SpecError("config.json: sliding_window_pattern is 0");
    for (uint64_t i = 0; i < t.layers; ++i)
      if ((i + 1) % pattern != 0) fallback[i] = AttentionKind::Sliding;
  }
  add_layers(m, t, generation == 1 ? fallback : layer_kinds(r, t.layers, fallback), window);

  if (generation == 3) {
    // Global layers use rope_theta (and rope_scaling); sliding ones rope_local_base_freq. Newer
    // configs nest both under rope_parameters.{full_attention, sliding_attention}.
    double global = r.number({"rope_theta"}, 0), local = r.number({"rope_local_base_freq"}, 0);
    std::string scaling;
    auto read_scaling = [&](const Json* s) {
      if (!s || !s->is_object()) return;
      const Json* type = s->find("rope_type");
      if (!type) type = s->find("type");
      std::string ty = type && type->is_string() ? type->as_string() : "";
      if (ty.empty() || ty == "default") return;
      scaling = ", " + ty + " scaling";
      if (const Json* f = s->find("factor"); f && f->is_number()) scaling += " ×" + format_number(*f->as_double());
    };
    if (const Json* params = r.field({"rope_parameters"}); params && params->is_object()) {
      if (const Json* full = params->find("full_attention"); full && full->is_object()) {
        if (const Json* th = full->find("rope_theta"); th && th->is_number()) global = *th->as_double();
        read_scaling(full);
      }
      if (const Json* sl = params->find("sliding_attention"); sl && sl->is_object())
        if (const Json* th = sl->find("rope_theta"); th && th->is_number()) local = *th->as_double();
    }
    read_scaling(r.field({"rope_scaling"}));
    if (global == 0) global = 1000000;
    if (local == 0) local = 10000;
    m.position_summary = "RoPE θ=" + format_number(global) + " global" + scaling + ", θ=" + format_number(local) + " sliding";
    m.position_summary += ", max " + std::to_string(r.get({"max_position_embeddings"}, 131072)) + " positions";
  } else {
    m.position_summary = describe_rope(r);
  }
  m.layer_summary = layer_mix(m, window, "dense GeGLU MLP");
  return m;
}

// SigLIP vision encoder (transformers SiglipVisionModel) as stored in Gemma 3 checkpoints:
// conv patch embedding, learned position embedding per patch, pre-norm encoder layers with biased
// projections and LayerNorms, a final LayerNorm; the attention-pooling head only when
// vision_use_head is set. Names are the on-disk ones ("vision_tower.vision_model...."), which
// reconcile leaves unmapped.
void add_siglip_tower(ArchModel& m, const ConfigReader& v, const std::string& prefix, uint64_t& width) {
  // SiglipVisionConfig defaults.
  uint64_t h = v.get({"hidden_size"}, 768), inter = v.get({"intermediate_size"}, 3072);
  uint64_t layers = v.get({"num_hidden_layers"}, 12), heads = v.get({"num_attention_heads"}, 12);
  uint64_t channels = v.get({"num_channels"}, 3), image = v.get({"image_size"}, 224), patch = v.get({"patch_size"}, 16);
  if (h == 0 || heads == 0) throw SpecError("config.json: vision_config needs positive sizes");
  uint64_t positions = patch_grid(image, patch);
  std::string e = prefix + "embeddings.";
  add(m, e + "patch_embedding.weight", {h, channels, patch, patch}, Role::Vision);
  add(m, e + "patch_embedding.bias", {h}, Role::Vision);
  add(m, e + "position_embedding.weight", {positions, h}, Role::Vision);
  for (uint64_t i = 0; i < layers; ++i) {
    std::string p = prefix + "encoder.layers." + std::to_string(i) + ".";
    for (const char* n : {"layer_norm1", "layer_norm2"}) add_layernorm(m, p + n, h, -1, true, Role::Vision);
    for (const char* n : {"q_proj", "k_proj", "v_proj", "out_proj"})
      add_linear(m, p + "self_attn." + n, h, h, Role::Vision);
    add_linear(m, p + "mlp.fc1", inter, h, Role::Vision);
    add_linear(m, p + "mlp.fc2", h, inter, Role::Vision);
  }
  add_layernorm(m, prefix + "post_layernorm", h, -1, true, Role::Vision);
  if (v.flag({"vision_use_head"}, true)) {
    std::string p = prefix + "head.";
    add(m, p + "probe", {1, 1, h}, Role::Vision);
    add(m, p + "attention.in_proj_weight", {3 * h, h}, Role::Vision);
    add(m, p + "attention.in_proj_bias", {3 * h}, Role::Vision);
    add_linear(m, p + "attention.out_proj", h, h, Role::Vision);
    add_layernorm(m, p + "layernorm", h, -1, true, Role::Vision);
    add_linear(m, p + "mlp.fc1", inter, h, Role::Vision);
    add_linear(m, p + "mlp.fc2", h, inter, Role::Vision);
  }
  width = h;
  m.notes.push_back("vision tower: SigLIP, " + std::to_string(layers) + " layers, width " + std::to_string(h) + ", " +
                    std::to_string(image) + "px images in " + std::to_string(patch) + "px patches (" +
                    std::to_string(positions) + " positions)");
}

}  // namespace

Result<ArchModel> gemma_spec(const ModelConfig& cfg) { return text_model(ConfigReader(cfg), "gemma", 1); }
Result<ArchModel> gemma2_spec(const ModelConfig& cfg) { return text_model(ConfigReader(cfg), "gemma2", 2); }
Result<ArchModel> gemma3_text_spec(const ModelConfig& cfg) { return text_model(ConfigReader(cfg), "gemma3_text", 3); }

Result<ArchModel> gemma3_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m = text_model(r, "gemma3", 3);
  uint64_t vision_width = 0;
  if (r.has_section("vision_config")) {
    add_siglip_tower(m, r.section("vision_config"), "vision_tower.vision_model.", vision_width);
  } else {
    // Without vision_config transformers builds the default SiglipVisionConfig tower.
    auto defaults = ModelConfig::parse("{\"vision_config\":{}}", "defaults");
    if (!defaults) throw SpecError("internal: default vision config");
    add_siglip_tower(m, ConfigReader(*defaults).section("vision_config"), "vision_tower.vision_model.", vision_width);
  }
  // Projector: RMSNorm over the pooled patch embeddings, then one bias-free matrix stored as
  // [vision width, text width] (a parameter, not an nn.Linear, hence the unusual name).
  add(m, "multi_modal_projector.mm_soft_emb_norm.weight", {vision_width}, Role::Projector);
  add(m, "multi_modal_projector.mm_input_projection_weight", {vision_width, m.hidden_size}, Role::Projector);
  uint64_t tokens = r.get({"mm_tokens_per_image"}, 256);
  m.notes.push_back("each image becomes " + std::to_string(tokens) + " soft tokens (patch grid average-pooled)");
  m.layer_summary += "; SigLIP vision tower + projector";
  return m;
}

}  // namespace hfi::arch
