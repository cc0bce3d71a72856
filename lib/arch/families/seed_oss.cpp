// ByteDance Seed-OSS (seed_oss): Llama's layout and names (pre-norm RMSNorms, GQA, SwiGLU) with its
// biases split three ways: attention_bias on q/k/v (true by default), attention_out_bias on o_proj
// (false by default) and mlp_bias. dense_decoder ties the o_proj bias to attention_bias, so this
// spec runs the same per-layer blocks itself (add_attention_sublayer, add_swiglu,
// finish_llama_like) with the split flags. head_dim defaults to 128 rather than hidden / heads: the
// 36B model's q width (80 × 128) is twice its hidden size.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> seed_oss_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "seed_oss";
  AttentionDims d = read_attention_dims(r);
  d.head_dim = r.get({"head_dim"}, 128);  // SeedOssConfig's default
  if (d.head_dim == 0) throw SpecError("config.json: head_dim is 0");
  d.qkv_bias = r.flag({"attention_bias"}, true);
  d.o_bias = r.flag({"attention_out_bias"}, false);
  bool mlp_bias = r.flag({"mlp_bias"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_attention_sublayer(m, p, l, d);
    add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp, mlp_bias);
  }
  finish_llama_like(m, r, layers, d);
  if (d.o_bias) m.attention_summary += ", o bias";
  if (mlp_bias) m.activation_summary += ", MLP bias";
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  // Dropouts (inactive at inference) and Megatron's tensor-parallel split of the checkpoint.
  m.structure_irrelevant_fields = {"residual_dropout", "pretraining_tp"};
  return m;
}

}  // namespace hfi::arch
