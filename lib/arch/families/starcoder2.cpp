// StarCoder2 (BigCode): the Llama/Mistral layout of names (model.layers.N.self_attn.{q,k,v,o}_proj,
// model.embed_tokens, model.norm, lm_head) with GPT-style pieces in it: grouped-query attention whose
// four projections all carry a bias when use_bias is set, a two-matrix GELU MLP named c_fc / c_proj
// (biased under the same flag), and LayerNorms that always have a bias (nn.LayerNorm, whatever
// use_bias says). RoPE over the whole head; one sliding window (sliding_window, 4096 in the released
// models) on every layer. The head is tied by default (PretrainedConfig's tie_word_embeddings) and
// the 15B config unties it.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> starcoder2_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "starcoder2";
  AttentionDims d = read_attention_dims(r);
  bool bias = r.flag({"use_bias"}, true);
  d.qkv_bias = d.o_bias = bias;
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t vocab = r.need({"vocab_size"});
  bool tied = r.flag({"tie_word_embeddings"}, true);
  add(m, "model.embed_tokens.weight", {vocab, d.hidden}, Role::Embedding);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_layernorm(m, p + "input_layernorm", d.hidden, l);
    add_layernorm(m, p + "post_attention_layernorm", d.hidden, l);
    add_gqa_attention(m, p + "self_attn.", l, d);
    add_linear(m, p + "mlp.c_fc", inter, d.hidden, Role::Mlp, l, bias);
    add_linear(m, p + "mlp.c_proj", d.hidden, inter, Role::Mlp, l, bias);
  }
  add_layernorm(m, "model.norm", d.hidden, -1);
  add_lm_head(m, "lm_head", vocab, d.hidden, tied);
  add_attention_layers(m, r, layers, d);
  m.attention_summary = describe_attention(d) + (bias ? ", output bias" : "");
  m.position_summary = describe_rope(r);
  m.norm_summary = "LayerNorm with bias";
  m.activation_summary = describe_activation(r, false, "gelu_pytorch_tanh") + " (c_fc/c_proj)";
  size_t sliding = 0;
  for (const auto& a : m.attention) sliding += a.kind == AttentionKind::Sliding;
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)" +
                    (sliding ? ", sliding window " + std::to_string(r.get({"sliding_window"}, 0)) + " tokens" : "");
  // residual/embedding dropouts and norm_epsilon change no tensor. mlp_type ("default") and
  // norm_type ("layer_norm") are left over from BigCode's training configs: transformers'
  // Starcoder2Config does not read them and always builds the c_fc/c_proj MLP and nn.LayerNorm.
  m.structure_irrelevant_fields = {"residual_dropout", "embedding_dropout", "norm_epsilon", "mlp_type", "norm_type"};
  return m;
}

}  // namespace hfi::arch
