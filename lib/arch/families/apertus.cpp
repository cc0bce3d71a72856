// Swiss AI Apertus (apertus): a Llama derivation. Attention is Llama's with per-head q_norm / k_norm
// [head_dim] (Qwen3 style, so add_gqa_attention's qk_norm covers it); the two pre-norms keep
// Llama's places under other names (attention_layernorm, feedforward_layernorm); the MLP has no
// gate (Nemotron's up_proj -> activation -> down_proj) and its activation, xIELU, is a module with
// two learned scalars (act_fn.alpha_p, act_fn.alpha_n, shape [1]) and two persistent rank-0 buffers
// (act_fn.beta, act_fn.eps) that checkpoints store. The config's qk_norm / post_norm flags are not
// switches in transformers: QK-norm is always built and the norms always come first.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> apertus_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "apertus";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = d.o_bias = r.flag({"attention_bias"}, false);
  d.qk_norm = true;
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  std::string act = cfg.string({"hidden_act"}).value_or("xielu");
  bool xielu = act == "xielu";
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add(m, p + "attention_layernorm.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "feedforward_layernorm.weight", {d.hidden}, Role::Norm, l);
    add_gqa_attention(m, p + "self_attn.", l, d);
    add_up_down_mlp(m, p + "mlp.", l, d.hidden, inter, false);
    if (xielu) {
      add(m, p + "mlp.act_fn.alpha_p", {1}, Role::Mlp, l);
      add(m, p + "mlp.act_fn.alpha_n", {1}, Role::Mlp, l);
      // Constants (beta 0.5, eps -1e-6) kept as persistent buffers: stored, rank 0, counted as 0.
      add(m, p + "mlp.act_fn.beta", {}, Role::Buffer, l);
      m.tensors.back().optional = true;
      add(m, p + "mlp.act_fn.eps", {}, Role::Buffer, l);
      m.tensors.back().optional = true;
    }
  }
  finish_llama_like(m, r, layers, d);
  m.activation_summary = act + (xielu ? " (learned alpha_p/alpha_n per layer), ungated up/down MLP" : ", ungated up/down MLP");
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  // Training-time dropout; qk_norm and post_norm are read by no transformers code (see above).
  m.structure_irrelevant_fields = {"hidden_dropout", "qk_norm", "post_norm"};
  return m;
}

}  // namespace hfi::arch
