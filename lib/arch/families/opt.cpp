// Meta's OPT (OPTForCausalLM), a BART-style decoder: everything sits under model.decoder. (the
// released facebook/opt-* files were saved from the bare OPTModel, so their names start at
// "decoder." and hold no lm_head; fine-tunes saved from OPTForCausalLM add "model."). Learned
// absolute positions whose table has max_position_embeddings + 2 rows (OPT offsets every position
// id by 2), MHA with biased k/v/q/out_proj, a fc1/fc2 ReLU MLP, LayerNorms with bias. When
// word_embed_proj_dim differs from hidden_size (opt-350m) the embedding and the tied head work at
// that width and two bias-free projections bridge it: project_in after the lookup, project_out
// before the head. do_layer_norm_before false (opt-350m) makes the layers post-norm and drops the
// decoder's final_layer_norm, as does _remove_final_layer_norm for old fine-tunes.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> opt_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "opt";
  // "decoder.embed_tokens.weight" locates the stack whether the file has "model." before it or not.
  m.prefix_anchor = "decoder.embed_tokens.weight";
  AttentionDims d;
  d.hidden = r.need({"hidden_size", "d_model"});
  d.heads = r.need({"num_attention_heads"});
  d.kv_heads = d.heads;
  d.head_dim = d.hidden / d.heads;
  if (d.head_dim == 0 || d.head_dim * d.heads != d.hidden)
    throw SpecError("config.json: hidden_size is not a multiple of num_attention_heads");
  bool bias = r.flag({"enable_bias"}, true);
  d.qkv_bias = d.o_bias = bias;
  bool affine = r.flag({"layer_norm_elementwise_affine"}, true);
  bool pre_norm = r.flag({"do_layer_norm_before"}, true);
  bool final_norm = pre_norm && !r.flag({"_remove_final_layer_norm"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t ffn = r.need({"ffn_dim"});
  uint64_t vocab = r.need({"vocab_size"});
  uint64_t positions = r.get({"max_position_embeddings"}, 2048);
  uint64_t embed_dim = r.get({"word_embed_proj_dim"}, d.hidden);
  bool tied = r.flag({"tie_word_embeddings"}, true);

  // A LayerNorm without elementwise_affine has no tensors at all.
  auto layer_norm = [&](const std::string& name, int layer) {
    if (affine) add_layernorm(m, name, d.hidden, layer);
  };
  reserve_layers(m, layers, 16);
  add(m, "model.decoder.embed_tokens.weight", {vocab, embed_dim}, Role::Embedding);
  add(m, "model.decoder.embed_positions.weight", {positions + 2, d.hidden}, Role::Embedding);
  if (embed_dim != d.hidden) {
    add_linear(m, "model.decoder.project_out", embed_dim, d.hidden, Role::Projector, -1, false);
    add_linear(m, "model.decoder.project_in", d.hidden, embed_dim, Role::Projector, -1, false);
  }
  if (final_norm) layer_norm("model.decoder.final_layer_norm", -1);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.decoder.layers." + std::to_string(i) + ".";
    for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
      add_linear(m, p + "self_attn." + proj, d.hidden, d.hidden, Role::Attention, l, bias);
    layer_norm(p + "self_attn_layer_norm", l);
    add_linear(m, p + "fc1", ffn, d.hidden, Role::Mlp, l, bias);
    add_linear(m, p + "fc2", d.hidden, ffn, Role::Mlp, l, bias);
    layer_norm(p + "final_layer_norm", l);
    m.attention.push_back(attention_layer(d));
  }
  // The head reads the word_embed_proj_dim-wide output of project_out (or the hidden state).
  add_lm_head(m, "lm_head", vocab, embed_dim, tied);
  m.hidden_size = d.hidden;

  m.attention_summary = describe_attention(d) + (bias ? ", biased k/v/q/out_proj" : ", no biases");
  m.position_summary = "learned absolute positions, " + std::to_string(positions) + " positions (table of " +
                       std::to_string(positions + 2) + " rows: ids offset by 2)";
  m.norm_summary = std::string(affine ? "LayerNorm with bias" : "LayerNorm without weights") +
                   (pre_norm ? ", pre-norm" : ", post-norm") + (final_norm ? ", final LayerNorm" : ", no final LayerNorm");
  m.activation_summary = describe_activation(r, false, "relu") + " (fc1/fc2)";
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  if (embed_dim != d.hidden)
    m.layer_summary += "; embeddings and head at width " + std::to_string(embed_dim) + " (project_in / project_out)";
  m.structure_irrelevant_fields = {"activation_dropout", "init_std", "layerdrop", "prefix"};
  return m;
}

}  // namespace hfi::arch
