// Whisper (WhisperForConditionalGeneration): a speech encoder-decoder. The encoder takes a log-mel
// spectrogram (num_mel_bins channels) through a two-convolution stem, conv1 (kernel 3) and conv2
// (kernel 3, stride 2, halving the frames), adds fixed sinusoidal positions that the checkpoint
// nevertheless stores as embed_positions [max_source_positions, d_model], then runs pre-norm layers
// and a final layer_norm. The decoder has its own token embedding (no "shared" module), learned
// positions embed_positions [max_target_positions, d_model], pre-norm layers with cross-attention
// (encoder_attn) and a final layer_norm. In every attention k_proj has no bias while q_proj,
// v_proj and out_proj do. The head proj_out [vocab, d_model] is tied to decoder.embed_tokens and
// sits outside "model." (optional when tied).
//
// Roles: the whole encoder is Role::Audio. It runs once per 30-second window (a fixed
// max_source_positions = 1500 frames), not once per generated token, like the audio towers of
// multimodal models; the decoder's weights are the per-token path.
//
// KV cache: only the decoder's self-attention grows with the generated length (at most
// max_target_positions tokens); the cross-attention keys and values are computed once per window
// from the encoder's 1500 frames.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> whisper_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "whisper";
  m.prefix_anchor = "decoder.embed_tokens.weight";
  // WhisperConfig defaults (whisper-tiny's shape).
  uint64_t d_model = r.get({"d_model"}, 384);
  uint64_t vocab = r.get({"vocab_size"}, 51865);
  uint64_t mels = r.get({"num_mel_bins"}, 80);
  uint64_t enc_layers = r.get({"encoder_layers"}, 4);
  (void)r.get({"num_hidden_layers"}, enc_layers);
  uint64_t dec_layers = r.get({"decoder_layers"}, 4);
  uint64_t enc_ffn = r.get({"encoder_ffn_dim"}, 1536);
  uint64_t dec_ffn = r.get({"decoder_ffn_dim"}, 1536);
  uint64_t enc_heads = r.get({"encoder_attention_heads"}, 6);
  uint64_t dec_heads = r.get({"decoder_attention_heads"}, 6);
  uint64_t src_positions = r.get({"max_source_positions"}, 1500);
  uint64_t tgt_positions = r.get({"max_target_positions"}, 448);
  bool tied = r.flag({"tie_word_embeddings"}, true);
  bool scale = r.flag({"scale_embedding"}, false);
  (void)r.flag({"is_encoder_decoder"}, true);
  if (enc_heads == 0 || dec_heads == 0 || d_model % enc_heads || d_model % dec_heads)
    throw SpecError("config.json: d_model is not a multiple of the attention heads");

  auto layer_norm = [&](const std::string& p, int layer, Role role) { add_layernorm(m, p, d_model, layer, true, role); };
  auto attention = [&](const std::string& p, int layer, Role role) {
    add_linear(m, p + "k_proj", d_model, d_model, role, layer, false);
    add_linear(m, p + "v_proj", d_model, d_model, role, layer);
    add_linear(m, p + "q_proj", d_model, d_model, role, layer);
    add_linear(m, p + "out_proj", d_model, d_model, role, layer);
  };
  auto mlp = [&](const std::string& p, uint64_t ffn, int layer, Role role) {
    add_linear(m, p + "fc1", ffn, d_model, role, layer);
    add_linear(m, p + "fc2", d_model, ffn, role, layer);
  };

  reserve_layers(m, enc_layers + dec_layers, 26);
  // Encoder: conv stem (weights [out, in, kernel]), stored sinusoidal positions, layers; all Audio.
  add(m, "model.encoder.conv1.weight", {d_model, mels, 3}, Role::Audio);
  add(m, "model.encoder.conv1.bias", {d_model}, Role::Audio);
  add(m, "model.encoder.conv2.weight", {d_model, d_model, 3}, Role::Audio);
  add(m, "model.encoder.conv2.bias", {d_model}, Role::Audio);
  add(m, "model.encoder.embed_positions.weight", {src_positions, d_model}, Role::Audio);
  for (uint64_t i = 0; i < enc_layers; ++i) {
    std::string p = "model.encoder.layers." + std::to_string(i) + ".";
    attention(p + "self_attn.", -1, Role::Audio);
    layer_norm(p + "self_attn_layer_norm", -1, Role::Audio);
    mlp(p, enc_ffn, -1, Role::Audio);
    layer_norm(p + "final_layer_norm", -1, Role::Audio);
  }
  layer_norm("model.encoder.layer_norm", -1, Role::Audio);

  add(m, "model.decoder.embed_tokens.weight", {vocab, d_model}, Role::Embedding);
  add(m, "model.decoder.embed_positions.weight", {tgt_positions, d_model}, Role::Embedding);
  for (uint64_t i = 0; i < dec_layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.decoder.layers." + std::to_string(i) + ".";
    attention(p + "self_attn.", l, Role::Attention);
    layer_norm(p + "self_attn_layer_norm", l, Role::Norm);
    attention(p + "encoder_attn.", l, Role::Attention);
    layer_norm(p + "encoder_attn_layer_norm", l, Role::Norm);
    mlp(p, dec_ffn, l, Role::Mlp);
    layer_norm(p + "final_layer_norm", l, Role::Norm);
    AttentionLayer a;
    a.kind = AttentionKind::Full;
    a.heads = a.kv_heads = static_cast<uint32_t>(dec_heads);
    a.qk_dim = a.v_dim = static_cast<uint32_t>(d_model / dec_heads);
    m.attention.push_back(a);
  }
  layer_norm("model.decoder.layer_norm", -1, Role::Norm);
  // Outside "model.": reconcile leaves it at the root.
  add_lm_head(m, "proj_out", vocab, d_model, tied);

  m.attention_summary = "encoder MHA " + std::to_string(enc_heads) + " heads, decoder MHA " + std::to_string(dec_heads) +
                        " heads + cross-attention, head_dim " + std::to_string(d_model / dec_heads) +
                        ", biased q/v/out (k_proj without bias)";
  m.position_summary = "encoder: sinusoidal positions stored as a " + std::to_string(src_positions) +
                       "-row table; decoder: learned, " + std::to_string(tgt_positions) + " positions" +
                       (scale ? ", token embeddings scaled by sqrt(d_model)" : "");
  m.norm_summary = "LayerNorm with bias (pre-norm), final LayerNorm on each stack";
  m.activation_summary = describe_activation(r, false, "gelu") + " (fc1/fc2)";
  m.layer_summary = "audio encoder: conv stem (" + std::to_string(mels) + " mel bins, stride 2) + " +
                    std::to_string(enc_layers) + " layers; text decoder: " + std::to_string(dec_layers) +
                    " layers (self + cross attention + MLP)";
  m.notes.push_back("the audio encoder runs once per 30 s window (" + std::to_string(src_positions) +
                    " frames), not per generated token: its weights are role audio, outside the active count");
  m.notes.push_back("encoder-decoder: the KV cache counts the decoder's self-attention, which grows with the generated "
                    "length (at most " + std::to_string(tgt_positions) + " tokens); cross-attention keys and values (2 × " +
                    std::to_string(dec_layers) + " layers × " + std::to_string(d_model) + " × " +
                    std::to_string(src_positions) + " frames per window) are computed once per window and come on top");
  // Dropouts, layer-drop, initialiser scale, SpecAugment training options, classification-head
  // options (WhisperForAudioClassification), and decoding defaults: no tensors of this model, no
  // per-token cost.
  m.structure_irrelevant_fields = {"activation_dropout", "decoder_layerdrop", "encoder_layerdrop", "init_std",
                                   "decoder_start_token_id", "apply_spec_augment", "mask_time_prob", "mask_time_length",
                                   "mask_time_min_masks", "mask_feature_prob", "mask_feature_length",
                                   "mask_feature_min_masks", "classifier_proj_size", "use_weighted_layer_sum",
                                   "median_filter_width", "forced_decoder_ids", "suppress_tokens",
                                   "begin_suppress_tokens", "max_length", "gradient_checkpointing"};
  return m;
}

}  // namespace hfi::arch
