// BART and mBART (BartForConditionalGeneration / BartModel, MBartForConditionalGeneration): an
// encoder-decoder in the layout M2M-100 later reused (see m2m100.cpp): one shared token embedding
// (`shared`, which both stacks' embed_tokens and the LM head point at), biased q/k/v/out
// projections, a plain fc1/fc2 MLP, LayerNorms with bias. What BART adds:
//   - learned absolute positions per stack, embed_positions [max_position_embeddings + 2, d_model]:
//     fairseq reserved the first two rows (the "offset 2"), so the table is two rows longer than the
//     longest sequence;
//   - layernorm_embedding on each stack, applied to token + position embeddings;
//   - final_logits_bias [1, vocab], a persistent buffer of BartForConditionalGeneration added to the
//     logits (a bare BartModel checkpoint, like facebook/bart-base, has none);
//   - post-norm layers (BART) against pre-norm layers with a final layer_norm on each stack (mBART).
// Names are written under "model." with "shared.weight" as the anchor, so a BartModel file that
// keeps them at the root (shared.weight, encoder.layers.N...) reconciles too.
//
// KV cache: only the decoder's self-attention grows with the generated length; cross-attention keys
// and values are computed once from the encoder output and scale with the source length.
#include "arch/families/families.hpp"

namespace hfi::arch {

namespace {

// The decoder layers' KV-cache entries of an encoder-decoder: plain multi-head self-attention of
// head_dim d_model / heads per layer (cross-attention is not cached per generated token). The same
// loop as m2m_100_spec's; a candidate for blocks.hpp (see the encdec notes).
void add_decoder_self_attention(ArchModel& m, uint64_t layers, uint64_t heads, uint64_t head_dim) {
  for (uint64_t i = 0; i < layers; ++i) {
    AttentionLayer a;
    a.kind = AttentionKind::Full;
    a.heads = a.kv_heads = static_cast<uint32_t>(heads);
    a.qk_dim = a.v_dim = static_cast<uint32_t>(head_dim);
    m.attention.push_back(a);
  }
}

ArchModel bart_like(const ModelConfig& cfg, const char* family, bool mbart) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = family;
  m.prefix_anchor = "shared.weight";
  // BartConfig / MBartConfig defaults (bart-large's shape).
  uint64_t d_model = r.get({"d_model"}, 1024);
  uint64_t vocab = r.get({"vocab_size"}, 50265);
  uint64_t enc_layers = r.get({"encoder_layers"}, 12);
  (void)r.get({"num_hidden_layers"}, enc_layers);
  uint64_t dec_layers = r.get({"decoder_layers"}, 12);
  uint64_t enc_ffn = r.get({"encoder_ffn_dim"}, 4096);
  uint64_t dec_ffn = r.get({"decoder_ffn_dim"}, 4096);
  uint64_t enc_heads = r.get({"encoder_attention_heads"}, 16);
  uint64_t dec_heads = r.get({"decoder_attention_heads"}, 16);
  uint64_t positions = r.get({"max_position_embeddings"}, 1024);
  bool tied = r.flag({"tie_word_embeddings"}, true);
  bool scale = r.flag({"scale_embedding"}, false);
  (void)r.flag({"is_encoder_decoder"}, true);
  if (enc_heads == 0 || dec_heads == 0 || d_model % enc_heads || d_model % dec_heads)
    throw SpecError("config.json: d_model is not a multiple of the attention heads");
  uint64_t table = checked_sum("max_position_embeddings + 2", {positions, 2});

  add(m, "model.shared.weight", {vocab, d_model}, Role::Embedding);
  // The stacks' own embedding modules point at model.shared; writers may still store them.
  for (const char* stack : {"model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight"}) {
    add(m, stack, {vocab, d_model}, Role::Embedding);
    m.tensors.back().optional = true;
  }
  add_lm_head(m, "lm_head", vocab, d_model, tied);
  // A zero buffer of the generation head, outside "model."; absent from bare BartModel files.
  add(m, "final_logits_bias", {1, vocab}, Role::Buffer);
  m.tensors.back().optional = true;

  auto layer_norm = [&](const std::string& p, int layer) { add_layernorm(m, p, d_model, layer); };
  auto attention = [&](const std::string& p, int layer) {
    for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
      add_linear(m, p + proj, d_model, d_model, Role::Attention, layer);
  };
  auto mlp = [&](const std::string& p, uint64_t ffn, int layer) {
    add_linear(m, p + "fc1", ffn, d_model, Role::Mlp, layer);
    add_linear(m, p + "fc2", d_model, ffn, Role::Mlp, layer);
  };
  auto stack_embeddings = [&](const std::string& stack) {
    // Position rows are looked up, not multiplied: an embedding like the token table.
    add(m, stack + "embed_positions.weight", {table, d_model}, Role::Embedding);
    layer_norm(stack + "layernorm_embedding", -1);
  };

  reserve_layers(m, enc_layers + dec_layers, 20);
  stack_embeddings("model.encoder.");
  // Encoder layers run once per source token, outside the decoder's layer numbering (as m2m_100).
  for (uint64_t i = 0; i < enc_layers; ++i) {
    std::string p = "model.encoder.layers." + std::to_string(i) + ".";
    attention(p + "self_attn.", -1);
    layer_norm(p + "self_attn_layer_norm", -1);
    mlp(p, enc_ffn, -1);
    layer_norm(p + "final_layer_norm", -1);
  }
  if (mbart) layer_norm("model.encoder.layer_norm", -1);
  stack_embeddings("model.decoder.");
  for (uint64_t i = 0; i < dec_layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.decoder.layers." + std::to_string(i) + ".";
    attention(p + "self_attn.", l);
    layer_norm(p + "self_attn_layer_norm", l);
    attention(p + "encoder_attn.", l);
    layer_norm(p + "encoder_attn_layer_norm", l);
    mlp(p, dec_ffn, l);
    layer_norm(p + "final_layer_norm", l);
  }
  if (mbart) layer_norm("model.decoder.layer_norm", -1);
  add_decoder_self_attention(m, dec_layers, dec_heads, d_model / dec_heads);

  m.attention_summary = "encoder MHA " + std::to_string(enc_heads) + " heads, decoder MHA " + std::to_string(dec_heads) +
                        " heads + cross-attention, head_dim " + std::to_string(d_model / dec_heads) + ", biased projections";
  m.position_summary = "learned absolute positions per stack, " + std::to_string(positions) + " positions (table of " +
                       std::to_string(table) + " rows: offset 2)" + (scale ? ", embeddings scaled by sqrt(d_model)" : "");
  m.norm_summary = mbart ? "LayerNorm with bias (pre-norm), layernorm_embedding and a final LayerNorm on each stack"
                         : "LayerNorm with bias (post-norm), layernorm_embedding on each stack";
  m.activation_summary = describe_activation(r, false, "gelu") + " (fc1/fc2)";
  m.layer_summary = std::to_string(enc_layers) + " encoder + " + std::to_string(dec_layers) +
                    " decoder layers (self + cross attention + MLP)";
  m.notes.push_back("encoder-decoder: the KV cache counts the decoder's self-attention, which grows with the generated "
                    "length; cross-attention keys and values (2 × " + std::to_string(dec_layers) + " layers × " +
                    std::to_string(d_model) + " per source token) are computed once per source and come on top");
  // Dropout and layer-drop rates, initialiser scale, decoding defaults, classifier settings, and
  // fields BartConfig keeps for old configs but the model never reads (add_bias_logits,
  // add_final_layer_norm, normalize_before, normalize_embedding, static_position_embeddings: the
  // modeling code fixes those choices per family).
  m.structure_irrelevant_fields = {"activation_dropout", "decoder_layerdrop", "encoder_layerdrop", "init_std",
                                   "decoder_start_token_id", "forced_bos_token_id", "forced_eos_token_id",
                                   "classif_dropout", "classifier_dropout", "gradient_checkpointing", "add_bias_logits",
                                   "add_final_layer_norm", "normalize_before", "normalize_embedding",
                                   "static_position_embeddings", "extra_pos_embeddings", "task_specific_params",
                                   "num_beams", "no_repeat_ngram_size", "early_stopping", "max_length", "min_length",
                                   "length_penalty", "output_past", "id2label", "label2id", "num_labels"};
  return m;
}

}  // namespace

Result<ArchModel> bart_spec(const ModelConfig& cfg) { return bart_like(cfg, "bart", false); }

// mBART: BART's tensors plus a final layer_norm on each stack (pre-norm layers).
Result<ArchModel> mbart_spec(const ModelConfig& cfg) { return bart_like(cfg, "mbart", true); }

}  // namespace hfi::arch
