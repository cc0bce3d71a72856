// Huawei openPangu-Embedded (remote code, PanguEmbeddedForCausalLM, model_type "PanguEmbedded"):
// Llama's layout with one `bias` switch that puts biases on all four attention projections
// (q/k/v and o_proj), none in the MLP. The released 7B checkpoint also stores each layer's
// rotary inverse frequencies (self_attn.rotary_emb.inv_freq, float32 [head_dim / 2]): a buffer,
// not a parameter, listed as optional so writers that drop it are not missing anything.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> pangu_embedded_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  bool bias = r.flag({"bias"}, true);  // PanguEmbeddedConfig's default
  ArchModel m = dense_decoder(cfg, "PanguEmbedded", bias, false);
  AttentionDims d = read_attention_dims(r);
  uint64_t layers = r.need({"num_hidden_layers"});
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".self_attn.";
    if (bias && !r.flag({"attention_bias"}, false)) add(m, p + "o_proj.bias", {d.hidden}, Role::Attention, l);
    add(m, p + "rotary_emb.inv_freq", {d.head_dim / 2}, Role::Other, l);
    m.tensors.back().optional = true;
  }
  if (bias) m.attention_summary += ", o_proj bias";
  return m;
}

}  // namespace hfi::arch
