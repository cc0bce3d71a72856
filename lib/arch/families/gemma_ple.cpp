// Gemma 4 (and its on-device sibling Gemma 3n): Gemma-style decoders whose checkpoints carry far
// more than the decoder stack. What sets them apart:
//  - per-layer embeddings (PLE): a second token table of width num_layers x hidden_size_per_layer_input,
//    projected from the main embedding too, feeding a small gated input into every layer;
//  - KV sharing: the last num_kv_shared_layers layers compute no keys or values of their own; each
//    reads the KV of the last earlier layer of the same attention kind, so the KV cache holds only
//    the first layers (checkpoints may still store the unused k/v weights of the sharing layers);
//  - sliding / full layers with different head widths (Gemma 4: global_head_dim on full layers,
//    optionally keys reused as values with fewer KV heads there: attention_k_eq_v);
//  - an optional MoE block beside the dense MLP (Gemma 4 26B-A4B);
//  - audio and vision encoders plus their embedders stored under "model." beside
//    "model.language_model.", so their names are written verbatim.
#include <cstdio>

#include "arch/families/families.hpp"

namespace hfi::arch {
namespace {

std::string num(uint64_t v) { return std::to_string(v); }

std::string layer_prefix(const char* stack, uint64_t i) { return std::string(stack) + num(i) + "."; }

// A tower or embedder tensor, named exactly as the checkpoint spells it.
void add_verbatim(ArchModel& m, std::string name, std::vector<uint64_t> shape, Role role) {
  add(m, std::move(name), std::move(shape), role);
  m.tensors.back().verbatim = true;
}

// A tower section present with the expected model_type (or none given).
bool tower_is(const ConfigReader& r, const char* section, const char* model_type) {
  if (!r.has_section(section)) return false;
  const Json* t = r.section(section).field({"model_type"});
  return !t || !t->is_string() || t->as_string() == model_type;
}

// Gemma 4's Gemma4ClippableLinear: a bias-free linear under ".linear", plus four rank-0 clipping
// bounds when the tower uses clipped linears (the Hub counts rank-0 tensors as 0 parameters).
void add_clippable(ArchModel& m, const std::string& p, uint64_t in, uint64_t out, Role role, bool clipped) {
  add_verbatim(m, p + ".linear.weight", {out, in}, role);
  if (!clipped) return;
  for (const char* bound : {".input_min", ".input_max", ".output_min", ".output_max"}) add_verbatim(m, p + bound, {}, role);
}

// Per-layer attention kinds: layer_types when given, else Gemma's default of five sliding layers
// to one full layer; the last layer is always full.
std::vector<AttentionKind> gemma_kinds(const ConfigReader& r, uint64_t layers, uint64_t pattern) {
  std::vector<AttentionKind> kinds;
  if (const Json* t = r.field({"layer_types"}); t && t->is_array()) {
    kinds = attention_kinds(r, layers);
  } else {
    for (uint64_t i = 0; i < layers; ++i)
      kinds.push_back((i + 1) % pattern ? AttentionKind::Sliding : AttentionKind::Full);
  }
  if (!kinds.empty()) kinds.back() = AttentionKind::Full;
  return kinds;
}

// The layer whose KV a sharing layer reads: the last layer before the shared block with the same kind.
int kv_source(const std::vector<AttentionKind>& kinds, uint64_t first_shared, AttentionKind kind) {
  for (uint64_t j = first_shared; j-- > 0;)
    if (kinds[j] == kind) return static_cast<int>(j);
  throw SpecError("config.json: a KV-shared layer has no earlier layer of the same attention kind to read from");
}

// The rope_parameters entry for one layer kind ("sliding_attention" / "full_attention"), as text.
std::string describe_rope_entry(const ConfigReader& r, const char* kind) {
  const Json* rp = r.field({"rope_parameters"});
  const Json* e = rp && rp->is_object() ? rp->find(kind) : nullptr;
  if (!e || !e->is_object()) return "";
  std::string out = "RoPE";
  if (const Json* t = e->find("rope_type"); t && t->is_string() && t->as_string() != "default")
    out = t->as_string() + " RoPE";
  if (const Json* th = e->find("rope_theta"); th && th->is_number()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", th->as_double().value_or(0));
    out += std::string(" θ=") + buf;
  }
  if (const Json* f = e->find("partial_rotary_factor"); f && f->is_number())
    out += " on " + num(static_cast<uint64_t>(f->as_double().value_or(1) * 100 + 0.5)) + "% of dims";
  return out;
}

void gemma4_vision(ArchModel& m, const ConfigReader& v, uint64_t text_hidden) {
  uint64_t hidden = v.need({"hidden_size"});
  uint64_t heads = v.need({"num_attention_heads"});
  uint64_t kv_heads = v.get({"num_key_value_heads"}, heads);
  uint64_t head_dim = v.get({"head_dim"}, hidden / heads);
  uint64_t inter = v.need({"intermediate_size"});
  uint64_t layers = v.need({"num_hidden_layers"});
  uint64_t patch = v.get({"patch_size"}, 16);
  bool clipped = v.flag({"use_clipped_linears"}, false);
  const std::string p = "model.vision_tower.";
  add_verbatim(m, p + "patch_embedder.input_proj.weight", {hidden, 3 * patch * patch}, Role::Vision);
  // Learned x and y position tables, summed per patch.
  add_verbatim(m, p + "patch_embedder.position_embedding_table", {2, v.get({"position_embedding_size"}, 10240), hidden},
               Role::Vision);
  for (uint64_t i = 0; i < layers; ++i) {
    std::string q = p + "encoder." + layer_prefix("layers.", i);
    for (const char* n : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"})
      add_verbatim(m, q + n + ".weight", {hidden}, Role::Vision);
    add_clippable(m, q + "self_attn.q_proj", hidden, heads * head_dim, Role::Vision, clipped);
    add_clippable(m, q + "self_attn.k_proj", hidden, kv_heads * head_dim, Role::Vision, clipped);
    add_clippable(m, q + "self_attn.v_proj", hidden, kv_heads * head_dim, Role::Vision, clipped);
    add_clippable(m, q + "self_attn.o_proj", heads * head_dim, hidden, Role::Vision, clipped);
    add_verbatim(m, q + "self_attn.q_norm.weight", {head_dim}, Role::Vision);
    add_verbatim(m, q + "self_attn.k_norm.weight", {head_dim}, Role::Vision);
    add_clippable(m, q + "mlp.gate_proj", hidden, inter, Role::Vision, clipped);
    add_clippable(m, q + "mlp.up_proj", hidden, inter, Role::Vision, clipped);
    add_clippable(m, q + "mlp.down_proj", inter, hidden, Role::Vision, clipped);
  }
  if (v.flag({"standardize"}, false)) {
    add_verbatim(m, p + "std_bias", {hidden}, Role::Vision);
    add_verbatim(m, p + "std_scale", {hidden}, Role::Vision);
  }
  // The embedder's pre-projection RMSNorm has no scale, so only the projection is stored.
  add_verbatim(m, "model.embed_vision.embedding_projection.weight", {text_hidden, hidden}, Role::Projector);
  m.layer_summary += "; vision encoder " + num(layers) + " layers (" + num(hidden) + " wide, " + num(patch) +
                     "px patches" + (clipped ? ", clipped linears" : "") + ")";
}

// The USM-style conformer audio encoder: a two-step conv subsampler, then per layer a macaron pair
// of feed-forwards around chunked local self-attention (relative position keys) and a light conv.
void gemma4_audio(ArchModel& m, const ConfigReader& a, uint64_t text_hidden) {
  uint64_t hidden = a.need({"hidden_size"});
  uint64_t heads = a.need({"num_attention_heads"});
  uint64_t layers = a.need({"num_hidden_layers"});
  uint64_t kernel = a.get({"conv_kernel_size"}, 5);
  uint64_t out_dims = a.get({"output_proj_dims"}, 1536);
  bool clipped = a.flag({"use_clipped_linears"}, true);
  uint64_t c0 = 128, c1 = 32;
  if (const Json* ch = a.field({"subsampling_conv_channels"}); ch && ch->is_array()) {
    if (ch->items().size() != 2) throw SpecError("config.json: audio_config.subsampling_conv_channels needs two entries");
    c0 = ch->items()[0].as_uint().value_or(0);
    c1 = ch->items()[1].as_uint().value_or(0);
    if (c0 == 0 || c1 == 0) throw SpecError("config.json: audio_config.subsampling_conv_channels must be positive integers");
  }
  uint64_t head_dim = hidden / heads;
  const std::string p = "model.audio_tower.";
  const std::string s = p + "subsample_conv_projection.";
  add_verbatim(m, s + "layer0.conv.weight", {c0, 1, 3, 3}, Role::Audio);
  add_verbatim(m, s + "layer0.norm.weight", {c0}, Role::Audio);
  add_verbatim(m, s + "layer1.conv.weight", {c1, c0, 3, 3}, Role::Audio);
  add_verbatim(m, s + "layer1.norm.weight", {c1}, Role::Audio);
  // Two stride-2 convs quarter the frequency axis: (c0 / 4) bins x c1 channels per frame.
  add_verbatim(m, s + "input_proj_linear.weight", {hidden, (c0 / 4) * c1}, Role::Audio);
  for (uint64_t i = 0; i < layers; ++i) {
    std::string q = p + layer_prefix("layers.", i);
    for (const char* ff : {"feed_forward1.", "feed_forward2."}) {
      add_clippable(m, q + ff + "ffw_layer_1", hidden, 4 * hidden, Role::Audio, clipped);
      add_clippable(m, q + ff + "ffw_layer_2", 4 * hidden, hidden, Role::Audio, clipped);
      add_verbatim(m, q + ff + "pre_layer_norm.weight", {hidden}, Role::Audio);
      add_verbatim(m, q + ff + "post_layer_norm.weight", {hidden}, Role::Audio);
    }
    add_clippable(m, q + "self_attn.q_proj", hidden, heads * head_dim, Role::Audio, clipped);
    add_clippable(m, q + "self_attn.k_proj", hidden, heads * head_dim, Role::Audio, clipped);
    add_clippable(m, q + "self_attn.v_proj", hidden, heads * head_dim, Role::Audio, clipped);
    add_clippable(m, q + "self_attn.post", hidden, hidden, Role::Audio, clipped);
    add_verbatim(m, q + "self_attn.relative_k_proj.weight", {heads * head_dim, hidden}, Role::Audio);
    add_verbatim(m, q + "self_attn.per_dim_scale", {head_dim}, Role::Audio);
    add_clippable(m, q + "lconv1d.linear_start", hidden, 2 * hidden, Role::Audio, clipped);  // GLU input
    add_clippable(m, q + "lconv1d.linear_end", hidden, hidden, Role::Audio, clipped);
    add_verbatim(m, q + "lconv1d.depthwise_conv1d.weight", {hidden, 1, kernel}, Role::Audio);
    add_verbatim(m, q + "lconv1d.pre_layer_norm.weight", {hidden}, Role::Audio);
    add_verbatim(m, q + "lconv1d.conv_norm.weight", {hidden}, Role::Audio);
    for (const char* n : {"norm_pre_attn", "norm_post_attn", "norm_out"})
      add_verbatim(m, q + n + ".weight", {hidden}, Role::Audio);
  }
  add_verbatim(m, p + "output_proj.weight", {out_dims, hidden}, Role::Audio);
  add_verbatim(m, p + "output_proj.bias", {out_dims}, Role::Audio);
  add_verbatim(m, "model.embed_audio.embedding_projection.weight", {text_hidden, out_dims}, Role::Projector);
  m.layer_summary += "; audio conformer " + num(layers) + " layers (" + num(hidden) + " wide, chunked local attention)";
}

}  // namespace

Result<ArchModel> gemma4_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "gemma4";
  uint64_t hidden = r.need({"hidden_size"});
  uint64_t heads = r.need({"num_attention_heads"});
  uint64_t kv_heads = r.get({"num_key_value_heads"}, heads);
  uint64_t head_dim = r.get({"head_dim"}, 256);
  uint64_t global_head_dim = r.get({"global_head_dim"}, 512);  // transformers' default when absent
  bool k_eq_v = r.flag({"attention_k_eq_v"}, false);
  uint64_t global_kv_heads = k_eq_v ? r.get({"num_global_key_value_heads"}, kv_heads) : kv_heads;
  bool bias = r.flag({"attention_bias"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t vocab = r.need({"vocab_size"});
  uint64_t ple = r.get({"hidden_size_per_layer_input"}, 256);
  uint64_t ple_vocab = r.get({"vocab_size_per_layer_input"}, vocab);
  uint64_t shared = r.get({"num_kv_shared_layers"}, 0);
  if (shared > layers) throw SpecError("config.json: num_kv_shared_layers exceeds num_hidden_layers");
  uint64_t first_shared = layers - shared;
  bool double_wide = r.flag({"use_double_wide_mlp"}, false);
  bool moe = r.flag({"enable_moe_block"}, false);
  uint64_t experts = 0, top_k = 0, moe_inter = 0;
  if (moe) {
    experts = r.need({"num_experts"});
    top_k = r.need({"top_k_experts"});
    moe_inter = r.need({"moe_intermediate_size", "expert_intermediate_size"});
  }
  uint64_t window = r.get({"sliding_window"}, 512);
  // Fully bidirectional models halve the window (exclusive bounds on both sides).
  if (auto bidir = cfg.string({"use_bidirectional_attention"}); bidir && *bidir == "all") window = window / 2 + 1;

  auto kinds = gemma_kinds(r, layers, 6);
  add_embeddings(m, vocab, hidden, r.flag({"tie_word_embeddings"}, true));
  if (ple) {
    add(m, "model.embed_tokens_per_layer.weight", {ple_vocab, layers * ple}, Role::PerLayerEmbedding);
    // Context part of the per-layer inputs: the main embedding projected to every layer's slice.
    add(m, "model.per_layer_model_projection.weight", {layers * ple, hidden}, Role::Other);
    add(m, "model.per_layer_projection_norm.weight", {ple}, Role::Norm);
  }
  uint64_t sliding = 0;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = layer_prefix("model.layers.", i);
    bool full = kinds[i] == AttentionKind::Full;
    sliding += !full;
    uint64_t hd = full && global_head_dim ? global_head_dim : head_dim;
    uint64_t kvh = full ? global_kv_heads : kv_heads;
    bool no_v = k_eq_v && full;  // keys double as values
    bool is_shared = i >= first_shared;

    for (const char* n : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"})
      add(m, p + n + ".weight", {hidden}, Role::Norm, l);
    add(m, p + "layer_scalar", {1}, Role::Norm, l);  // per-layer output scale
    std::string a = p + "self_attn.";
    add(m, a + "q_proj.weight", {heads * hd, hidden}, Role::Attention, l);
    add(m, a + "q_norm.weight", {hd}, Role::Attention, l);
    add(m, a + "o_proj.weight", {hidden, heads * hd}, Role::Attention, l);
    if (bias) {
      add(m, a + "q_proj.bias", {heads * hd}, Role::Attention, l);
      add(m, a + "o_proj.bias", {hidden}, Role::Attention, l);
    }
    // A KV-sharing layer has no k/v weights in the model; writers may still store them (Google's
    // E2B does), unused at inference: optional, and never counted as active.
    size_t kv_first = m.tensors.size();
    add(m, a + "k_proj.weight", {kvh * hd, hidden}, Role::Attention, l);
    add(m, a + "k_norm.weight", {hd}, Role::Attention, l);  // v_norm has no scale
    if (!no_v) add(m, a + "v_proj.weight", {kvh * hd, hidden}, Role::Attention, l);
    if (bias) {
      add(m, a + "k_proj.bias", {kvh * hd}, Role::Attention, l);
      if (!no_v) add(m, a + "v_proj.bias", {kvh * hd}, Role::Attention, l);
    }
    if (is_shared)
      for (size_t t = kv_first; t < m.tensors.size(); ++t) {
        m.tensors[t].optional = true;
        m.tensors[t].active_num = 0;
      }

    uint64_t width = inter * (double_wide && is_shared && first_shared > 0 ? 2 : 1);
    add_swiglu(m, p + "mlp.", l, hidden, width, Role::Mlp);
    if (moe) {
      // Experts run beside the dense MLP on the pre-MLP residual; both outputs are normed and summed.
      add(m, p + "router.proj.weight", {experts, hidden}, Role::Router, l);
      add(m, p + "router.scale", {hidden}, Role::Router, l);
      add(m, p + "router.per_expert_scale", {experts}, Role::Router, l);
      size_t first = m.tensors.size();
      add(m, p + "experts.gate_up_proj", {experts, 2 * moe_inter, hidden}, Role::RoutedExpert, l);
      add(m, p + "experts.down_proj", {experts, hidden, moe_inter}, Role::RoutedExpert, l);
      mark_routed(m, first, static_cast<uint32_t>(top_k), static_cast<uint32_t>(experts));
      for (const char* n : {"post_feedforward_layernorm_1", "pre_feedforward_layernorm_2", "post_feedforward_layernorm_2"})
        add(m, p + n + ".weight", {hidden}, Role::Norm, l);
    }
    if (ple) {
      add(m, p + "per_layer_input_gate.weight", {ple, hidden}, Role::Other, l);
      add(m, p + "per_layer_projection.weight", {hidden, ple}, Role::Other, l);
      add(m, p + "post_per_layer_input_norm.weight", {hidden}, Role::Norm, l);
    }

    AttentionLayer at;
    at.kind = kinds[i];
    at.heads = static_cast<uint32_t>(heads);
    at.kv_heads = static_cast<uint32_t>(kvh);
    at.qk_dim = at.v_dim = static_cast<uint32_t>(hd);
    at.window = full ? 0 : window;
    if (is_shared) at.kv_source_layer = kv_source(kinds, first_shared, kinds[i]);
    m.attention.push_back(at);
  }

  std::string kvdesc = kv_heads == heads ? "MHA" : kv_heads == 1 ? "MQA" : "GQA";
  m.attention_summary = kvdesc + " " + num(heads) + "q/" + num(kv_heads) + "kv heads, head_dim " + num(head_dim) +
                        " (sliding) / " + num(global_head_dim) +
                        (global_kv_heads != kv_heads ? " with " + num(global_kv_heads) + "kv heads" : std::string()) +
                        " (full)" + (k_eq_v ? ", full layers reuse keys as values" : "") + ", QK-norm";
  if (bias) m.attention_summary += ", biases";
  if (shared) {
    m.attention_summary += "; KV shared: layers " + num(first_shared) + "-" + num(layers - 1) + " reuse the KV of layer";
    std::string sources;
    for (AttentionKind k : {AttentionKind::Sliding, AttentionKind::Full}) {
      bool used = false;
      for (uint64_t i = first_shared; i < layers; ++i) used = used || kinds[i] == k;
      if (!used) continue;
      sources += (sources.empty() ? " " : " and ") + num(static_cast<uint64_t>(kv_source(kinds, first_shared, k))) +
                 (k == AttentionKind::Sliding ? " (sliding)" : " (full)");
    }
    m.attention_summary += sources;
  }
  std::string rs = describe_rope_entry(r, "sliding_attention"), rf = describe_rope_entry(r, "full_attention");
  m.position_summary = rs.empty() && rf.empty() ? describe_rope(r) : "sliding: " + rs + "; full: " + rf;
  if (auto ctx = cfg.integer({"max_position_embeddings"})) m.position_summary += ", max " + std::to_string(*ctx) + " positions";
  m.norm_summary = "RMSNorm before and after attention and MLP, QK-norm, unscaled V-norm";
  m.activation_summary = describe_activation(r, true);
  m.layer_summary = num(layers) + " layers: " + num(sliding) + " sliding (" + num(window) + " tokens) + " +
                    num(layers - sliding) + " full";
  if (moe)
    m.layer_summary += ", each with a dense MLP (" + num(inter) + ") beside " + num(experts) + " experts (top-" +
                       num(top_k) + ", " + num(moe_inter) + " wide)";
  if (ple) m.layer_summary += "; per-layer embeddings " + num(layers) + " x " + num(ple) + " from a " + num(ple_vocab) + "-token table";
  if (shared)
    m.layer_summary += "; last " + num(shared) + " layers share KV" +
                       (double_wide ? " and use a double-wide MLP (" + num(2 * inter) + ")" : std::string());
  // Only the towers this spec knows; another encoder (Gemma 4 12B's encoder-free "unified" vision
  // and audio) is left to reconcile, which lists its tensors as unexplained.
  if (tower_is(r, "vision_config", "gemma4_vision")) gemma4_vision(m, r.section("vision_config"), hidden);
  if (tower_is(r, "audio_config", "gemma4_audio")) gemma4_audio(m, r.section("audio_config"), hidden);
  m.structure_irrelevant_fields = {
      // token ids and the per-image soft-token budget of the processor
      "audio_token_id", "boa_token_id", "boi_token_id", "eoa_token_id", "eoa_token_index", "eoi_token_id",
      "image_token_id", "video_token_id", "vision_soft_tokens_per_image",
      // a tanh cap on the output logits: no weights, negligible cost
      "final_logit_softcapping"};
  return m;
}

}  // namespace hfi::arch
