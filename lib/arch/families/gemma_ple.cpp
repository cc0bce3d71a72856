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
// Gemma 3n, the predecessor, shares PLE and KV sharing but keeps one head width, adds AltUp and
// LAuReL to every layer, allows a different MLP width per layer, and ships different towers: a timm
// MobileNetV5 vision encoder and a USM conformer audio encoder, each with a small token embedder.
#include <algorithm>
#include <cstdio>

#include "arch/families/families.hpp"

namespace hfi::arch {
namespace {

std::string num(uint64_t v) { return std::to_string(v); }


// A tower or embedder tensor, named exactly as the checkpoint spells it.
void add_verbatim(ArchModel& m, std::string name, Shape shape, Role role) {
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

// Per-layer attention kinds: layer_types when given, else every pattern-th layer full and the rest
// sliding (Gemma 4: 1 in 6, Gemma 3n: 1 in 5). Gemma 4 always makes the last layer full.
std::vector<AttentionKind> gemma_kinds(const ConfigReader& r, uint64_t layers, uint64_t pattern,
                                       bool last_full = true) {
  std::vector<AttentionKind> kinds;
  if (const Json* t = r.field({"layer_types"}); t && t->is_array()) {
    kinds = attention_kinds(r, layers);
  } else {
    for (uint64_t i = 0; i < layers; ++i)
      kinds.push_back((i + 1) % pattern ? AttentionKind::Sliding : AttentionKind::Full);
  }
  if (last_full && !kinds.empty()) kinds.back() = AttentionKind::Full;
  return kinds;
}

// The layer whose KV a sharing layer reads: the last layer before the shared block with the same kind.
int kv_source(const std::vector<AttentionKind>& kinds, uint64_t first_shared, AttentionKind kind) {
  for (uint64_t j = first_shared; j-- > 0;)
    if (kinds[j] == kind) return static_cast<int>(j);
  throw SpecError("config.json: a KV-shared layer has no earlier layer of the same attention kind to read from");
}

// The four sandwich norms and the attention of one Gemma 3n / Gemma 4 layer. A KV-sharing layer
// has no use for its own k/v weights; writers may still store them (Google's checkpoints do),
// unused at inference: optional, and never counted as active.
struct GemmaAttention {
  uint64_t hidden, heads, kv_heads, head_dim;
  bool bias;
  bool keys_as_values;  // Gemma 4 full layers: no v_proj
  bool kv_shared;
};

void add_gemma_block_norms_and_attention(ArchModel& m, const std::string& p, int l, const GemmaAttention& g) {
  for (const char* n : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"})
    add(m, p + n + ".weight", {g.hidden}, Role::Norm, l);
  std::string a = p + "self_attn.";
  uint64_t q = g.heads * g.head_dim, kv = g.kv_heads * g.head_dim;
  add(m, a + "q_proj.weight", {q, g.hidden}, Role::Attention, l);
  add(m, a + "q_norm.weight", {g.head_dim}, Role::Attention, l);
  add(m, a + "o_proj.weight", {g.hidden, q}, Role::Attention, l);
  if (g.bias) {
    add(m, a + "q_proj.bias", {q}, Role::Attention, l);
    add(m, a + "o_proj.bias", {g.hidden}, Role::Attention, l);
  }
  size_t kv_first = m.tensors.size();
  add(m, a + "k_proj.weight", {kv, g.hidden}, Role::Attention, l);
  add(m, a + "k_norm.weight", {g.head_dim}, Role::Attention, l);  // v_norm has no scale
  if (!g.keys_as_values) add(m, a + "v_proj.weight", {kv, g.hidden}, Role::Attention, l);
  if (g.bias) {
    add(m, a + "k_proj.bias", {kv}, Role::Attention, l);
    if (!g.keys_as_values) add(m, a + "v_proj.bias", {kv}, Role::Attention, l);
  }
  if (g.kv_shared)
    for (size_t t = kv_first; t < m.tensors.size(); ++t) {
      m.tensors[t].optional = true;
      m.tensors[t].active_num = 0;
    }
}

// The per-layer-embedding input of one layer: gate, projection back to the hidden size, norm.
void add_per_layer_input(ArchModel& m, const std::string& p, int l, uint64_t ple, uint64_t hidden) {
  add(m, p + "per_layer_input_gate.weight", {ple, hidden}, Role::Other, l);
  add(m, p + "per_layer_projection.weight", {hidden, ple}, Role::Other, l);
  add(m, p + "post_per_layer_input_norm.weight", {hidden}, Role::Norm, l);
}

// Layer i's attention for the KV figures: sliding layers capped at `window`; a layer at or past
// `first_shared` reads the KV of the last earlier layer of its kind.
AttentionLayer gemma_attention_layer(const std::vector<AttentionKind>& kinds, uint64_t i, uint64_t first_shared, uint64_t heads,
                                     uint64_t kv_heads, uint64_t head_dim, uint64_t window) {
  AttentionLayer at;
  at.kind = kinds[i];
  at.heads = static_cast<uint32_t>(heads);
  at.kv_heads = static_cast<uint32_t>(kv_heads);
  at.qk_dim = at.v_dim = static_cast<uint32_t>(head_dim);
  at.window = kinds[i] == AttentionKind::Sliding ? window : 0;
  if (i >= first_shared) at.kv_source_layer = kv_source(kinds, first_shared, kinds[i]);
  return at;
}

// "; KV shared: layers 20-29 reuse the KV of layer 18 (sliding) and 19 (full)", for the summary.
std::string kv_sharing_text(const std::vector<AttentionKind>& kinds, uint64_t first_shared, uint64_t layers) {
  std::string out = "; KV shared: layers " + num(first_shared) + "-" + num(layers - 1) + " reuse the KV of layer";
  std::string sources;
  for (AttentionKind k : {AttentionKind::Sliding, AttentionKind::Full}) {
    bool used = false;
    for (uint64_t i = first_shared; i < layers; ++i) used = used || kinds[i] == k;
    if (!used) continue;
    sources += (sources.empty() ? " " : " and ") + num(static_cast<uint64_t>(kv_source(kinds, first_shared, k))) +
               (k == AttentionKind::Sliding ? " (sliding)" : " (full)");
  }
  return out + sources;
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

// ---- Gemma 3n ----

// Gemma 3n's multimodal embedder (model.embed_vision / model.embed_audio): a small table for the
// tower's own special tokens, RMSNorms for hard (table) and soft (tower output) embeddings, and the
// projection into the text width (its post-projection norm has no scale).
void gemma3n_embedder(ArchModel& m, const std::string& name, const ConfigReader& c, uint64_t width,
                      uint64_t text_hidden) {
  const std::string p = "model." + name + ".";
  add_verbatim(m, p + "embedding.weight", {c.get({"vocab_size"}, 128), width}, Role::Projector);
  add_verbatim(m, p + "hard_embedding_norm.weight", {width}, Role::Projector);
  add_verbatim(m, p + "soft_embedding_norm.weight", {width}, Role::Projector);
  add_verbatim(m, p + "embedding_projection.weight", {text_hidden, width}, Role::Projector);
}

// One block of timm's MobileNetV5 (channels are multiples of 8, so timm's rounding keeps them):
//  Edge:      conv_exp (k x k full conv to c_in * e) + conv_pwl (1x1 to c_out), an RMSNorm after each;
//  Inverted:  optional depthwise start conv (kernel a), pw_exp (1x1 to c_in * e), optional depthwise
//             mid conv (kernel k), pw_proj (1x1 to c_out), an RMSNorm after each conv, layer scale;
//  Attention: multi-query attention on the feature map: RMSNorm, per-head queries, one key and one
//             value head, each optionally after a depthwise stride-v conv + RMSNorm, output proj, layer scale.
struct MnBlock {
  enum Kind { Edge, Inverted, Attention } kind;
  uint32_t start_k = 0, mid_k = 0, expand = 1, out = 0;  // Edge uses mid_k as its expansion kernel
  uint32_t heads = 0, head_dim = 0, kv_stride = 1, kv_k = 3;
};

MnBlock edge(uint32_t k, uint32_t e, uint32_t c) { return {MnBlock::Edge, 0, k, e, c}; }
MnBlock inverted(uint32_t a, uint32_t k, uint32_t e, uint32_t c) { return {MnBlock::Inverted, a, k, e, c}; }
MnBlock mqa(uint32_t h, uint32_t d, uint32_t v, uint32_t c) { return {MnBlock::Attention, 0, 0, 1, c, h, d, v, 3}; }

// timm's mobilenetv5_300m_enc (the encoder Gemma 3n ships): four stages of blocks.
std::vector<std::vector<MnBlock>> mobilenetv5_300m_stages() {
  std::vector<std::vector<MnBlock>> st(4);
  st[0] = {edge(3, 4, 128), edge(3, 4, 128), edge(3, 4, 128)};
  st[1] = {inverted(3, 5, 6, 256), inverted(5, 0, 4, 256), inverted(3, 0, 4, 256), inverted(5, 0, 4, 256),
           inverted(3, 0, 4, 256)};
  st[2] = {inverted(5, 5, 6, 640)};
  for (int i = 0; i < 7; ++i) st[2].push_back(inverted(5, 0, 4, 640));
  st[2].push_back(inverted(0, 0, 1, 640));
  for (int i = 0; i < 14; ++i) {
    st[2].push_back(mqa(12, 64, 2, 640));
    st[2].push_back(inverted(0, 0, 2, 640));
  }
  st[3] = {inverted(5, 5, 6, 1280)};
  for (int i = 0; i < 19; ++i) {
    st[3].push_back(mqa(16, 96, 1, 1280));
    st[3].push_back(inverted(0, 0, 2, 1280));
  }
  return st;
}

// Gemma 3n's vision tower: timm's MobileNetV5 encoder wrapped by transformers' TimmWrapper under
// model.vision_tower.timm_model. A conv stem, the block stages, then a multi-scale fusion adapter
// (msfa) that concatenates the last two stages' maps and maps them to hidden_size channels.
// Returns false (adding nothing) for a timm architecture this spec does not know.
bool gemma3n_vision(ArchModel& m, const ConfigReader& v, uint64_t text_hidden) {
  const Json* arch = v.field({"architecture"});
  std::string name = arch && arch->is_string() ? arch->as_string() : "mobilenetv5_300m_enc";
  if (name != "mobilenetv5_300m_enc") return false;
  uint64_t hidden = v.get({"hidden_size"}, 2048);
  const std::string p = "model.vision_tower.timm_model.";
  const uint64_t stem = 64;
  add_verbatim(m, p + "conv_stem.conv.weight", {stem, 3, 3, 3}, Role::Vision);
  add_verbatim(m, p + "conv_stem.conv.bias", {stem}, Role::Vision);
  add_verbatim(m, p + "conv_stem.bn.weight", {stem}, Role::Vision);
  auto conv = [&](const std::string& n, uint64_t out, uint64_t in, uint64_t k) {
    add_verbatim(m, n + ".weight", {out, in, k, k}, Role::Vision);
  };
  auto norm = [&](const std::string& n, uint64_t width) { add_verbatim(m, n + ".weight", {width}, Role::Vision); };
  uint64_t in = stem, blocks = 0;
  std::vector<uint64_t> stage_out;
  auto stages = mobilenetv5_300m_stages();
  for (size_t s = 0; s < stages.size(); ++s) {
    for (size_t b = 0; b < stages[s].size(); ++b) {
      const MnBlock& k = stages[s][b];
      std::string q = p + "blocks." + num(s) + "." + num(b) + ".";
      uint64_t mid = in * k.expand;
      switch (k.kind) {
        case MnBlock::Edge:
          conv(q + "conv_exp", mid, in, k.mid_k);
          norm(q + "bn1", mid);
          conv(q + "conv_pwl", k.out, mid, 1);
          norm(q + "bn2", k.out);
          break;
        case MnBlock::Inverted:
          if (k.start_k) {
            conv(q + "dw_start.conv", in, 1, k.start_k);  // depthwise
            norm(q + "dw_start.bn", in);
          }
          conv(q + "pw_exp.conv", mid, in, 1);
          norm(q + "pw_exp.bn", mid);
          if (k.mid_k) {
            conv(q + "dw_mid.conv", mid, 1, k.mid_k);  // depthwise
            norm(q + "dw_mid.bn", mid);
          }
          conv(q + "pw_proj.conv", k.out, mid, 1);
          norm(q + "pw_proj.bn", k.out);
          add_verbatim(m, q + "layer_scale.gamma", {k.out}, Role::Vision);
          break;
        case MnBlock::Attention:
          norm(q + "norm", in);
          conv(q + "attn.query.proj", uint64_t{k.heads} * k.head_dim, in, 1);
          for (const char* kv : {"key", "value"}) {
            std::string a = q + "attn." + kv + ".";
            if (k.kv_stride > 1) {
              conv(a + "down_conv", in, 1, k.kv_k);  // depthwise, strided
              norm(a + "norm", in);
            }
            conv(a + "proj", k.head_dim, in, 1);
          }
          conv(q + "attn.output.proj", k.out, uint64_t{k.heads} * k.head_dim, 1);
          add_verbatim(m, q + "layer_scale.gamma", {k.out}, Role::Vision);
          break;
      }
      in = k.out;
      ++blocks;
    }
    stage_out.push_back(in);
  }
  uint64_t fused = stage_out[stage_out.size() - 2] + stage_out.back();
  conv(p + "msfa.ffn.pw_exp.conv", 2 * fused, fused, 1);
  norm(p + "msfa.ffn.pw_exp.bn", 2 * fused);
  conv(p + "msfa.ffn.pw_proj.conv", hidden, 2 * fused, 1);
  norm(p + "msfa.ffn.pw_proj.bn", hidden);
  norm(p + "msfa.norm", hidden);
  gemma3n_embedder(m, "embed_vision", v, hidden, text_hidden);
  m.layer_summary += "; vision encoder MobileNetV5-300M (timm " + name + ", " + num(blocks) + " blocks, " +
                     num(hidden) + " channels out)";
  return true;
}

// A [h, w] pair from an array of two-entry arrays (sscp_conv_kernel_size / sscp_conv_stride_size).
std::pair<uint64_t, uint64_t> pair_at(const ConfigReader& a, const char* key, size_t i, uint64_t fallback) {
  const Json* f = a.field({key});
  if (!f || !f->is_array()) return {fallback, fallback};
  if (f->items().size() != 2 || !f->items()[i].is_array() || f->items()[i].items().size() != 2)
    throw SpecError(std::string("config.json: audio_config.") + key + " needs two [h, w] pairs");
  auto h = f->items()[i].items()[0].as_uint(), w = f->items()[i].items()[1].as_uint();
  if (!h || !w || *h == 0 || *w == 0) throw SpecError(std::string("config.json: audio_config.") + key + " must be positive integers");
  return {*h, *w};
}

// Gemma 3n's audio tower: the USM conformer. A subsampler of two 2-D convs over (time, mel) with
// cumulative group norms, a linear into the model width, then per layer a feed-forward, chunked local
// self-attention with relative-position keys, a light depthwise conv block and a second feed-forward.
void gemma3n_audio(ArchModel& m, const ConfigReader& a, uint64_t text_hidden) {
  uint64_t hidden = a.get({"hidden_size"}, 1536);
  uint64_t heads = a.get({"conf_num_attention_heads"}, 8);
  uint64_t layers = a.get({"conf_num_hidden_layers"}, 12);
  uint64_t kernel = a.get({"conf_conv_kernel_size"}, 5);
  uint64_t freq = a.get({"input_feat_size"}, 128);
  uint64_t ch[2] = {128, 32};
  if (const Json* c = a.field({"sscp_conv_channel_size"}); c && c->is_array()) {
    if (c->items().size() != 2) throw SpecError("config.json: audio_config.sscp_conv_channel_size needs two entries");
    for (size_t i = 0; i < 2; ++i) {
      ch[i] = c->items()[i].as_uint().value_or(0);
      if (ch[i] == 0) throw SpecError("config.json: audio_config.sscp_conv_channel_size must be positive integers");
    }
  }
  if (heads == 0 || hidden % heads) throw SpecError("config.json: audio_config.hidden_size is not a multiple of conf_num_attention_heads");
  const std::string p = "model.audio_tower.";
  const std::string s = p + "subsample_conv_projection.";
  for (size_t i = 0; i < 2; ++i) {
    auto [kh, kw] = pair_at(a, "sscp_conv_kernel_size", i, 3);
    auto [sh, sw] = pair_at(a, "sscp_conv_stride_size", i, 2);
    (void)sh;
    std::string c = s + "conv_" + num(i) + ".";
    add_verbatim(m, c + "conv.weight", {ch[i], i ? ch[0] : 1, kh, kw}, Role::Audio);
    add_verbatim(m, c + "norm.weight", {ch[i]}, Role::Audio);
    // The mel axis is padded by one on each side before each conv.
    if (freq + 2 < kw) throw SpecError("config.json: audio_config.input_feat_size is smaller than the conv kernel");
    freq = (freq + 2 - kw) / sw + 1;
  }
  add_verbatim(m, s + "input_proj_linear.weight", {hidden, ch[1] * freq}, Role::Audio);
  for (uint64_t i = 0; i < layers; ++i) {
    std::string q = p + layer_prefix("conformer.", i);
    for (const char* ff : {"ffw_layer_start.", "ffw_layer_end."}) {
      add_verbatim(m, q + ff + "pre_layer_norm.weight", {hidden}, Role::Audio);
      add_verbatim(m, q + ff + "ffw_layer_1.weight", {4 * hidden, hidden}, Role::Audio);
      add_verbatim(m, q + ff + "ffw_layer_2.weight", {hidden, 4 * hidden}, Role::Audio);
      add_verbatim(m, q + ff + "post_layer_norm.weight", {hidden}, Role::Audio);
    }
    std::string at = q + "attention.";
    add_verbatim(m, at + "pre_attn_norm.weight", {hidden}, Role::Audio);
    add_verbatim(m, at + "attn.per_dim_scale", {hidden / heads}, Role::Audio);
    add_verbatim(m, at + "attn.relative_position_embedding.pos_proj.weight", {hidden, hidden}, Role::Audio);
    for (const char* n : {"q_proj", "k_proj", "v_proj"})
      add_verbatim(m, at + "attn." + n + ".weight", {hidden, hidden}, Role::Audio);
    add_verbatim(m, at + "post.weight", {hidden, hidden}, Role::Audio);
    add_verbatim(m, at + "post_norm.weight", {hidden}, Role::Audio);
    std::string lc = q + "lconv1d.";
    add_verbatim(m, lc + "pre_layer_norm.weight", {hidden}, Role::Audio);
    add_verbatim(m, lc + "linear_start.weight", {2 * hidden, hidden}, Role::Audio);  // GLU input
    add_verbatim(m, lc + "depthwise_conv1d.weight", {hidden, 1, kernel}, Role::Audio);
    add_verbatim(m, lc + "conv_norm.weight", {hidden}, Role::Audio);
    add_verbatim(m, lc + "linear_end.weight", {hidden, hidden}, Role::Audio);
    add_verbatim(m, q + "norm.weight", {hidden}, Role::Audio);
  }
  gemma3n_embedder(m, "embed_audio", a, hidden, text_hidden);
  m.layer_summary += "; audio conformer " + num(layers) + " layers (" + num(hidden) + " wide, " + num(heads) +
                     " heads, chunked local attention)";
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

    add_gemma_block_norms_and_attention(m, p, l, {hidden, heads, kvh, hd, bias, no_v, is_shared});
    add(m, p + "layer_scalar", {1}, Role::Norm, l);  // per-layer output scale

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
    if (ple) add_per_layer_input(m, p, l, ple, hidden);

    m.attention.push_back(gemma_attention_layer(kinds, i, first_shared, heads, kvh, hd, window));
  }

  std::string kvdesc = kv_heads == heads ? "MHA" : kv_heads == 1 ? "MQA" : "GQA";
  m.attention_summary = kvdesc + " " + num(heads) + "q/" + num(kv_heads) + "kv heads, head_dim " + num(head_dim) +
                        " (sliding) / " + num(global_head_dim) +
                        (global_kv_heads != kv_heads ? " with " + num(global_kv_heads) + "kv heads" : std::string()) +
                        " (full)" + (k_eq_v ? ", full layers reuse keys as values" : "") + ", QK-norm";
  if (bias) m.attention_summary += ", biases";
  if (shared) m.attention_summary += kv_sharing_text(kinds, first_shared, layers);
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

// Gemma 3n (model_type gemma3n, or gemma3n_text for the language model alone). Beside Gemma 3's
// sandwich-normed decoder with QK-norm (and an unscaled V-norm) it adds, per layer: AltUp (the
// residual stream is carried as altup_num_inputs copies; only one runs through the layer, a small
// router and coefficient matrices predict and correct the others), LAuReL (a rank-laurel_rank
// bypass summed with the attention output) and the per-layer-embedding gate; the MLP width may
// differ per layer (intermediate_size as a list, MatFormer slices).
Result<ArchModel> gemma3n_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "gemma3n";
  uint64_t hidden = r.need({"hidden_size"});
  uint64_t heads = r.need({"num_attention_heads"});
  uint64_t kv_heads = r.get({"num_key_value_heads"}, heads);
  uint64_t head_dim = r.get({"head_dim"}, 256);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t vocab = r.need({"vocab_size"});
  uint64_t ple = r.get({"hidden_size_per_layer_input"}, 256);
  uint64_t ple_vocab = r.get({"vocab_size_per_layer_input"}, 262144);
  uint64_t altup = r.get({"altup_num_inputs"}, 4);
  uint64_t laurel = r.get({"laurel_rank"}, 64);
  uint64_t shared = r.get({"num_kv_shared_layers"}, 15);  // transformers' default when absent
  uint64_t window = r.get({"sliding_window"}, 512);
  bool bias = r.flag({"attention_bias"}, false);
  if (shared > layers) throw SpecError("config.json: num_kv_shared_layers exceeds num_hidden_layers");
  if (altup == 0) throw SpecError("config.json: altup_num_inputs must be at least 1");
  uint64_t first_shared = layers - shared;

  // MLP width: one value for all layers or one per layer.
  std::vector<uint64_t> inter(layers, 16384);
  if (const Json* f = r.field({"intermediate_size"})) {
    if (f->is_array()) {
      if (f->items().size() != layers)
        throw SpecError("config.json: intermediate_size has " + num(f->items().size()) + " entries for " + num(layers) +
                        " layers");
      for (size_t i = 0; i < layers; ++i) {
        inter[i] = f->items()[i].as_uint().value_or(0);
        if (inter[i] == 0) throw SpecError("config.json: intermediate_size[" + num(i) + "] must be a positive integer");
      }
    } else {
      inter.assign(layers, r.need({"intermediate_size"}));
    }
  }
  // Activation sparsity (a statistical top-k on the MLP gate) keeps the weights and the dense
  // multiply-adds; it is only described.
  uint64_t sparse_layers = 0;
  if (const Json* sp = r.field({"activation_sparsity_pattern"}); sp && sp->is_array())
    for (const Json& v : sp->items()) sparse_layers += v.as_double().value_or(0) > 0;

  auto kinds = gemma_kinds(r, layers, 5, false);
  add_embeddings(m, vocab, hidden, r.flag({"tie_word_embeddings"}, true));
  if (ple) {
    add(m, "model.embed_tokens_per_layer.weight", {ple_vocab, layers * ple}, Role::PerLayerEmbedding);
    add(m, "model.per_layer_model_projection.weight", {layers * ple, hidden}, Role::Other);
    add(m, "model.per_layer_projection_norm.weight", {ple}, Role::Norm);
  }
  // AltUp: the embedding is projected into the extra streams, which are projected back before the final norm.
  for (uint64_t i = 0; i + 1 < altup; ++i) {
    add(m, "model.altup_projections." + num(i) + ".weight", {hidden, hidden}, Role::Other);
    add(m, "model.altup_unembed_projections." + num(i) + ".weight", {hidden, hidden}, Role::Other);
  }
  uint64_t sliding = 0;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = layer_prefix("model.layers.", i);
    bool full = kinds[i] == AttentionKind::Full;
    sliding += !full;
    bool is_shared = i >= first_shared;
    add_gemma_block_norms_and_attention(m, p, l, {hidden, heads, kv_heads, head_dim, bias, false, is_shared});
    add_swiglu(m, p + "mlp.", l, hidden, inter[i], Role::Mlp);
    std::string u = p + "altup.";
    add(m, u + "correct_output_scale", {hidden}, Role::Other, l);
    add(m, u + "correction_coefs.weight", {altup, altup}, Role::Other, l);
    add(m, u + "prediction_coefs.weight", {altup * altup, altup}, Role::Other, l);
    add(m, u + "modality_router.weight", {altup, hidden}, Role::Other, l);
    add(m, u + "router_norm.weight", {hidden}, Role::Norm, l);
    add(m, p + "laurel.linear_left.weight", {laurel, hidden}, Role::Other, l);
    add(m, p + "laurel.linear_right.weight", {hidden, laurel}, Role::Other, l);
    add(m, p + "laurel.post_laurel_norm.weight", {hidden}, Role::Norm, l);
    if (ple) add_per_layer_input(m, p, l, ple, hidden);

    m.attention.push_back(gemma_attention_layer(kinds, i, first_shared, heads, kv_heads, head_dim, window));
  }

  std::string kvdesc = kv_heads == heads ? "MHA" : kv_heads == 1 ? "MQA" : "GQA";
  m.attention_summary = kvdesc + " " + num(heads) + "q/" + num(kv_heads) + "kv heads, head_dim " + num(head_dim) +
                        ", QK-norm" + (bias ? ", biases" : "");
  if (shared) m.attention_summary += kv_sharing_text(kinds, first_shared, layers);
  // Full layers use rope_theta, sliding ones rope_local_base_freq (newer writers: rope_parameters).
  std::string rs = describe_rope_entry(r, "sliding_attention"), rf = describe_rope_entry(r, "full_attention");
  if (rs.empty() && rf.empty()) {
    double global = r.number({"rope_theta"}, 1000000), local = r.number({"rope_local_base_freq"}, 10000);
    char buf[96];
    std::snprintf(buf, sizeof buf, "sliding: RoPE θ=%g; full: RoPE θ=%g", local, global);
    m.position_summary = buf;
  } else {
    m.position_summary = "sliding: " + rs + "; full: " + rf;
  }
  if (auto ctx = cfg.integer({"max_position_embeddings"})) m.position_summary += ", max " + std::to_string(*ctx) + " positions";
  m.norm_summary = "RMSNorm before and after attention and MLP, QK-norm, unscaled V-norm";
  m.activation_summary = describe_activation(r, true);
  if (sparse_layers) m.activation_summary += ", top-k activation sparsity in " + num(sparse_layers) + " layers";
  uint64_t lo = *std::min_element(inter.begin(), inter.end()), hi = *std::max_element(inter.begin(), inter.end());
  m.layer_summary = num(layers) + " layers: " + num(sliding) + " sliding (" + num(window) + " tokens) + " +
                    num(layers - sliding) + " full, MLP " + (lo == hi ? num(lo) : num(lo) + "-" + num(hi)) +
                    "; AltUp " + num(altup) + " streams, LAuReL rank " + num(laurel);
  if (ple) m.layer_summary += "; per-layer embeddings " + num(layers) + " x " + num(ple) + " from a " + num(ple_vocab) + "-token table";
  if (shared) m.layer_summary += "; last " + num(shared) + " layers share KV";
  // Only the towers this spec knows; another timm architecture is left to reconcile.
  if (tower_is(r, "vision_config", "gemma3n_vision") && !gemma3n_vision(m, r.section("vision_config"), hidden))
    m.notes.push_back("vision_config names a timm architecture this spec does not know; its tensors are not predicted");
  if (tower_is(r, "audio_config", "gemma3n_audio")) gemma3n_audio(m, r.section("audio_config"), hidden);
  m.structure_irrelevant_fields = {
      // token ids and the processor's soft-token budgets per image and per audio clip
      "audio_token_id", "boa_token_id", "boi_token_id", "eoa_token_id", "eoi_token_id", "image_token_id",
      "audio_soft_tokens_per_image", "vision_soft_tokens_per_image",
      // AltUp: which stream is active, a clamp on the coefficients, whether the existing output scale
      // is applied, and a training learning-rate factor: no tensors, no multiply-adds
      "altup_active_idx", "altup_coef_clip", "altup_correct_scale", "altup_lr_multiplier",
      // scalars applied to existing values
      "final_logit_softcapping", "query_pre_attn_scalar",
      // a marker unsloth's re-uploads of the Gemma 3n checkpoints add to config.json
      "unsloth_fixed"};
  return m;
}

}  // namespace hfi::arch
