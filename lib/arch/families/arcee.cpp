// Arcee AFM (arcee): a Llama derivation whose MLP drops the gate. Layers keep Llama's pre-norms and
// GQA attention (add_attention_sublayer, biases when attention_bias) and replace SwiGLU with
// Nemotron's two-matrix MLP, down_proj(act(up_proj(x))), act being relu2 (squared ReLU) in every
// release. head_dim may be given; AFM-4.5B's 20 heads × 128 equal its hidden size.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> arcee_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "arcee";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = d.o_bias = r.flag({"attention_bias"}, false);
  bool mlp_bias = r.flag({"mlp_bias"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_attention_sublayer(m, p, l, d);
    add_up_down_mlp(m, p + "mlp.", l, d.hidden, inter, mlp_bias);
  }
  finish_llama_like(m, r, layers, d);
  m.activation_summary = cfg.string({"hidden_act"}).value_or("relu2") + ", ungated up/down MLP";
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  return m;
}

}  // namespace hfi::arch
