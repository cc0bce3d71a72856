// M2M-100 / NLLB-200 (M2M100ForConditionalGeneration): a pre-LayerNorm encoder-decoder with
// sinusoidal positions (no tensors), one shared token embedding (model.shared) that the encoder,
// the decoder and the head reuse, biased q/k/v/out projections, a plain fc1/fc2 MLP and a final
// LayerNorm on each stack. Decoder layers add cross-attention (encoder_attn) with its own
// LayerNorm. Only the decoder's self-attention grows a cache per generated token; the
// cross-attention keys and values are computed once per source sequence.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> m2m_100_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "m2m_100";
  m.prefix_anchor = "shared.weight";
  uint64_t d_model = r.need({"d_model"});
  uint64_t vocab = r.need({"vocab_size"});
  uint64_t enc_layers = r.need({"encoder_layers", "num_hidden_layers"});
  (void)r.get({"num_hidden_layers"}, enc_layers);
  uint64_t dec_layers = r.need({"decoder_layers"});
  uint64_t enc_ffn = r.need({"encoder_ffn_dim"});
  uint64_t dec_ffn = r.need({"decoder_ffn_dim"});
  uint64_t enc_heads = r.need({"encoder_attention_heads"});
  uint64_t dec_heads = r.need({"decoder_attention_heads"});
  bool tied = r.flag({"tie_word_embeddings"}, true);
  (void)r.flag({"is_encoder_decoder"}, true);

  add(m, "model.shared.weight", {vocab, d_model}, Role::Embedding);
  // The stacks' own embedding modules point at model.shared; writers may still store them.
  for (const char* stack : {"model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight"}) {
    add(m, stack, {vocab, d_model}, Role::Embedding);
    m.tensors.back().optional = true;
  }
  add_lm_head(m, "lm_head", vocab, d_model, tied);

  auto layer_norm = [&](const std::string& p, int layer) { add_layernorm(m, p, d_model, layer); };
  auto attention = [&](const std::string& p, int layer) {
    for (const char* proj : {"q_proj", "k_proj", "v_proj", "out_proj"})
      add_linear(m, p + proj, d_model, d_model, Role::Attention, layer);
  };
  auto mlp = [&](const std::string& p, uint64_t ffn, int layer) {
    add_linear(m, p + "fc1", ffn, d_model, Role::Mlp, layer);
    add_linear(m, p + "fc2", d_model, ffn, Role::Mlp, layer);
  };
  // Encoder layers run once per source token, outside the decoder's layer numbering.
  for (uint64_t i = 0; i < enc_layers; ++i) {
    std::string p = "model.encoder.layers." + std::to_string(i) + ".";
    layer_norm(p + "self_attn_layer_norm", -1);
    attention(p + "self_attn.", -1);
    layer_norm(p + "final_layer_norm", -1);
    mlp(p, enc_ffn, -1);
  }
  layer_norm("model.encoder.layer_norm", -1);
  for (uint64_t i = 0; i < dec_layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.decoder.layers." + std::to_string(i) + ".";
    layer_norm(p + "self_attn_layer_norm", l);
    attention(p + "self_attn.", l);
    layer_norm(p + "encoder_attn_layer_norm", l);
    attention(p + "encoder_attn.", l);
    layer_norm(p + "final_layer_norm", l);
    mlp(p, dec_ffn, l);
    AttentionLayer a;
    a.kind = AttentionKind::Full;
    a.heads = a.kv_heads = static_cast<uint32_t>(dec_heads);
    a.qk_dim = a.v_dim = static_cast<uint32_t>(d_model / dec_heads);
    m.attention.push_back(a);
  }
  layer_norm("model.decoder.layer_norm", -1);

  m.attention_summary = "encoder MHA " + std::to_string(enc_heads) + " heads, decoder MHA " + std::to_string(dec_heads) +
                        " heads + cross-attention, head_dim " + std::to_string(d_model / dec_heads) + ", biased projections";
  m.position_summary = "sinusoidal positions (no tensors), max " +
                       std::to_string(r.get({"max_position_embeddings"}, 1024)) + " positions";
  m.norm_summary = "LayerNorm with bias (pre-norm), final LayerNorm on each stack";
  m.activation_summary = describe_activation(r, false, "relu");
  m.layer_summary = std::to_string(enc_layers) + " encoder + " + std::to_string(dec_layers) +
                    " decoder layers (self + cross attention + MLP)";
  m.notes.push_back("encoder-decoder: the KV cache counts the decoder's self-attention; cross-attention keys and "
                    "values (2 × " + std::to_string(dec_layers) + " layers × " + std::to_string(d_model) +
                    " per source token) come on top");
  // Dropout and layer-drop rates, initialiser scale, decoding defaults and the embedding scale
  // factor (a multiply by sqrt(d_model)): no tensors, no per-token cost.
  m.structure_irrelevant_fields = {"activation_dropout", "decoder_layerdrop", "encoder_layerdrop", "init_std",
                                   "decoder_start_token_id", "max_length", "scale_embedding"};
  return m;
}

}  // namespace hfi::arch
