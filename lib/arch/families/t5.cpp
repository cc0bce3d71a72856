// T5, mT5 and UMT5 (T5ForConditionalGeneration and its two clones): an encoder-decoder with one
// shared token embedding (`shared`, which the stacks' embed_tokens point at), no position tensors
// beyond a learned relative-position bias table [relative_attention_num_buckets, num_heads], bias-free
// q/k/v/o projections num_heads * d_kv wide (d_kv need not be d_model / num_heads), and RMS-style
// T5LayerNorms that have a weight only. Each block is a list of sub-layers: layer.0 self-attention,
// (decoder) layer.1 cross-attention "EncDecAttention", then the feed-forward "DenseReluDense", each
// with its own pre-norm; a final_layer_norm closes each stack.
//
// What tells the three apart:
//   - the relative bias sits in block 0's self-attention of each stack (t5, mt5: the other blocks
//     reuse it) or in every block's self-attention (umt5); cross-attention never has one;
//   - feed_forward_proj: "relu" (T5 v1.0: wi/wo) or "gated-gelu" (v1.1, flan-t5, mT5, UMT5:
//     wi_0/wi_1/wo); its default is relu for t5 and gated-gelu for mt5/umt5;
//   - tie_word_embeddings decides whether lm_head.weight is stored: tied by default for t5 (v1.0),
//     untied in v1.1/flan/mT5/UMT5 configs (mt5's own default is untied).
// The original T5 releases (t5-small/base/large) also store a relative bias in decoder block 0's
// EncDecAttention that transformers never builds and skips on load; the Hub counts it, so it is an
// optional tensor of role Buffer (stored, never used).
//
// KV cache: only the decoder's self-attention grows with the generated length; the cross-attention
// keys and values are computed once from the encoder output and scale with the source length.
// Encoder-only checkpoints (T5EncoderModel: diffusion text encoders) store shared + encoder only.
#include "arch/families/families.hpp"

namespace hfi::arch {

namespace {

struct T5Defaults {
  const char* family;
  bool bias_every_layer;     // umt5: a relative bias in every self-attention
  const char* ff_proj;       // feed_forward_proj default of the config class
  bool tied;                 // tie_word_embeddings default of the config class
  uint64_t vocab, d_model, d_ff, layers, heads;
};

bool encoder_only_class(const ConfigReader& r) {
  for (const auto& cls : r.config().architectures())
    if (cls.ends_with("EncoderModel")) return true;
  return false;
}

ArchModel t5_like(const ModelConfig& cfg, const T5Defaults& def) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = def.family;
  m.prefix_anchor = "shared.weight";
  uint64_t vocab = r.get({"vocab_size"}, def.vocab);
  uint64_t d_model = r.get({"d_model", "hidden_size"}, def.d_model);
  uint64_t d_kv = r.get({"d_kv", "head_dim"}, 64);
  uint64_t d_ff = r.get({"d_ff"}, def.d_ff);
  uint64_t heads = r.get({"num_heads", "num_attention_heads"}, def.heads);
  uint64_t enc_layers = r.get({"num_layers", "num_hidden_layers"}, def.layers);
  uint64_t dec_layers = r.get({"num_decoder_layers"}, enc_layers);
  uint64_t buckets = r.get({"relative_attention_num_buckets"}, 32);
  uint64_t max_distance = r.get({"relative_attention_max_distance"}, 128);
  std::string ff_proj = cfg.string({"feed_forward_proj"}).value_or(def.ff_proj);
  bool gated = ff_proj.starts_with("gated-");
  // is_gated_act and dense_act_fn are derived from feed_forward_proj on load; read so they are not
  // reported as unknown.
  (void)r.flag({"is_gated_act"}, gated);
  std::string act = cfg.string({"dense_act_fn"}).value_or(gated ? "gelu_new" : ff_proj);
  bool tied = r.flag({"tie_word_embeddings"}, def.tied);
  bool encoder_only = encoder_only_class(r);
  (void)r.flag({"is_encoder_decoder"}, true);
  uint64_t inner = checked_product("num_heads * d_kv", {heads, d_kv});

  add(m, "model.shared.weight", {vocab, d_model}, Role::Embedding);
  // The stacks' embed_tokens point at shared; some writers still store them.
  for (const char* stack : {"model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight"}) {
    if (encoder_only && std::string_view(stack).starts_with("model.decoder")) continue;
    add(m, stack, {vocab, d_model}, Role::Embedding);
    m.tensors.back().optional = true;
  }
  if (!encoder_only) {
    // Written without the model. prefix: the head sits beside the stacks, at the root.
    add_lm_head(m, "lm_head", vocab, d_model, tied);
  } else {
    m.vocab_size = vocab;
    m.hidden_size = d_model;
  }

  auto norm = [&](const std::string& p, int layer) { add(m, p + "layer_norm.weight", {d_model}, Role::Norm, layer); };
  auto attention = [&](const std::string& p, int layer, bool rel_bias) {
    for (const char* proj : {"q", "k", "v"}) add_linear(m, p + proj, inner, d_model, Role::Attention, layer, false);
    add_linear(m, p + "o", d_model, inner, Role::Attention, layer, false);
    if (rel_bias) add(m, p + "relative_attention_bias.weight", {buckets, heads}, Role::Attention, layer);
  };
  auto ffn = [&](const std::string& p, int layer) {
    if (gated) {
      add_linear(m, p + "wi_0", d_ff, d_model, Role::Mlp, layer, false);
      add_linear(m, p + "wi_1", d_ff, d_model, Role::Mlp, layer, false);
    } else {
      add_linear(m, p + "wi", d_ff, d_model, Role::Mlp, layer, false);
    }
    add_linear(m, p + "wo", d_model, d_ff, Role::Mlp, layer, false);
  };

  reserve_layers(m, enc_layers + dec_layers, 16);
  // Encoder blocks run once per source token, outside the decoder's layer numbering (as m2m_100).
  for (uint64_t i = 0; i < enc_layers; ++i) {
    std::string p = "model.encoder.block." + std::to_string(i) + ".layer.";
    attention(p + "0.SelfAttention.", -1, def.bias_every_layer || i == 0);
    norm(p + "0.", -1);
    ffn(p + "1.DenseReluDense.", -1);
    norm(p + "1.", -1);
  }
  add(m, "model.encoder.final_layer_norm.weight", {d_model}, Role::Norm);
  AttentionLayer full;
  full.kind = AttentionKind::Full;
  full.heads = full.kv_heads = static_cast<uint32_t>(heads);
  full.qk_dim = full.v_dim = static_cast<uint32_t>(d_kv);
  // An encoder alone (T5EncoderModel, a pipeline's text encoder) has its own attention work per
  // token, over the whole input; it keeps no cache (encoder_only).
  if (encoder_only) m.attention.assign(enc_layers, full);
  if (!encoder_only) {
    for (uint64_t i = 0; i < dec_layers; ++i) {
      int l = static_cast<int>(i);
      std::string p = "model.decoder.block." + std::to_string(i) + ".layer.";
      attention(p + "0.SelfAttention.", l, def.bias_every_layer || i == 0);
      norm(p + "0.", l);
      attention(p + "1.EncDecAttention.", l, false);
      if (i == 0 && !def.bias_every_layer) {
        add(m, p + "1.EncDecAttention.relative_attention_bias.weight", {buckets, heads}, Role::Buffer, l);
        m.tensors.back().optional = true;
      }
      norm(p + "1.", l);
      ffn(p + "2.DenseReluDense.", l);
      norm(p + "2.", l);
      m.attention.push_back(full);
    }
    add(m, "model.decoder.final_layer_norm.weight", {d_model}, Role::Norm);
  }
  m.encoder_only = encoder_only;

  std::string mha = "MHA " + std::to_string(heads) + " heads × d_kv " + std::to_string(d_kv) +
                    (inner != d_model ? " (inner " + std::to_string(inner) + " ≠ d_model " + std::to_string(d_model) + ")" : "");
  m.attention_summary = encoder_only ? "encoder " + mha + ", no biases"
                                     : mha + " in both stacks + decoder cross-attention, no biases";
  m.position_summary = "relative position bias (" + std::to_string(buckets) + " buckets, max distance " +
                       std::to_string(max_distance) + ") " +
                       (def.bias_every_layer ? "in every self-attention layer" : "in block 0 of each stack, shared by the rest");
  m.norm_summary = "T5LayerNorm (RMS, weight only), pre-norm, final norm on each stack";
  m.activation_summary = gated ? act + " (gated: wi_0/wi_1/wo)" : act + " (wi/wo)";
  m.layer_summary = encoder_only ? std::to_string(enc_layers) + " encoder layers (self-attention + MLP), no decoder stored"
                                 : std::to_string(enc_layers) + " encoder + " + std::to_string(dec_layers) +
                                       " decoder layers (self + cross attention + MLP)";
  if (!encoder_only)
    m.notes.push_back("encoder-decoder: the KV cache counts the decoder's self-attention, which grows with the generated "
                      "length; cross-attention keys and values (2 × " + std::to_string(dec_layers) + " layers × " +
                      std::to_string(inner) + " per source token) are computed once per source and come on top");
  if (!encoder_only && !def.bias_every_layer)
    m.notes.push_back("original T5 releases store a relative bias in decoder block 0's cross-attention that the network "
                      "never uses; counted as a stored tensor, not as active");
  // Dropouts, initialiser scale, epsilon, decoding defaults (task_specific_params, output_past) and
  // n_positions (T5 has no absolute positions; a leftover of the original configs): no tensors, no
  // per-token cost.
  m.structure_irrelevant_fields = {"dropout_rate", "classifier_dropout", "initializer_factor", "layer_norm_epsilon",
                                   "decoder_start_token_id", "task_specific_params", "output_past", "n_positions",
                                   "tokenizer_class", "gradient_checkpointing", "is_decoder"};
  return m;
}

}  // namespace

// T5Config defaults (transformers): t5-small's shape, relu FFN, tied head.
Result<ArchModel> t5_spec(const ModelConfig& cfg) {
  return t5_like(cfg, {"t5", false, "relu", true, 32128, 512, 2048, 6, 8});
}

// MT5Config defaults: mt5-small's shape, gated-gelu FFN, untied head; layout as T5 v1.1.
Result<ArchModel> mt5_spec(const ModelConfig& cfg) {
  return t5_like(cfg, {"mt5", false, "gated-gelu", false, 250112, 512, 1024, 8, 6});
}

// UMT5Config defaults: as mT5, with a relative bias in every self-attention layer. transformers 5
// forces tie_word_embeddings true for it while the released checkpoints store an untied lm_head;
// the flag read from the file only decides whether lm_head may be absent.
Result<ArchModel> umt5_spec(const ModelConfig& cfg) {
  return t5_like(cfg, {"umt5", true, "gated-gelu", true, 250112, 512, 1024, 8, 6});
}

}  // namespace hfi::arch
