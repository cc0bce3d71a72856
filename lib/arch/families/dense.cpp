// Dense decoder-only transformers that share Llama's tensor layout: llama, mistral, qwen2, qwen3.
// They differ only in biases (qwen2: q/k/v bias; llama: attention_bias, mlp_bias), QK-norm (qwen3)
// and how sliding-window layers are chosen.
#include "arch/blocks.hpp"
#include "arch/families/families.hpp"

namespace hfi::arch {

AttentionDims read_attention_dims(const ConfigReader& r) {
  AttentionDims d;
  d.hidden = r.need({"hidden_size"});
  d.heads = r.need({"num_attention_heads"});
  d.kv_heads = r.get({"num_key_value_heads"}, d.heads);
  d.head_dim = r.get({"head_dim"}, d.hidden / d.heads);
  if (d.head_dim == 0) throw SpecError("config.json: head_dim is 0");
  return d;
}

ArchModel dense_decoder(const ModelConfig& cfg, const char* family, bool qkv_bias_always, bool qk_norm) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = family;
  AttentionDims d = read_attention_dims(r);
  bool attention_bias = r.flag({"attention_bias"}, false);
  d.qkv_bias = qkv_bias_always || attention_bias;
  d.o_bias = attention_bias;
  d.qk_norm = qk_norm;
  bool mlp_bias = r.flag({"mlp_bias"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t vocab = r.need({"vocab_size"});
  bool tied = r.flag({"tie_word_embeddings"}, false);
  add_embeddings(m, vocab, d.hidden, tied);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_attention_sublayer(m, p, l, d);
    add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp, mlp_bias);
  }
  finish_llama_like(m, r, layers, d);
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  return m;
}

Result<ArchModel> llama_spec(const ModelConfig& cfg) { return dense_decoder(cfg, "llama", false, false); }
Result<ArchModel> mistral_spec(const ModelConfig& cfg) { return dense_decoder(cfg, "mistral", false, false); }
Result<ArchModel> qwen2_spec(const ModelConfig& cfg) { return dense_decoder(cfg, "qwen2", true, false); }
Result<ArchModel> qwen3_spec(const ModelConfig& cfg) { return dense_decoder(cfg, "qwen3", false, true); }

}  // namespace hfi::arch
