// Xiaomi MiMo (remote code, MiMoForCausalLM): a Qwen2 decoder (q/k/v biases, no o_proj bias)
// plus num_nextn_predict_layers multi-token-prediction layers stored as model.mtp_layers.K. Each
// MTP layer RMS-normalises the token embedding and the previous hidden state (token_layernorm,
// hidden_layernorm), joins them through input_proj [hidden, 2*hidden], then runs one Qwen2
// attention + MLP block and a final_layernorm; it reuses the main embedding and head.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> mimo_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m = dense_decoder(cfg, "mimo", true, false);
  // MiMo builds its attention from Qwen2Attention, which always has q/k/v biases and never an
  // o_proj bias, whatever attention_bias says (the released configs set it true).
  std::erase_if(m.tensors, [](const ExpectedTensor& t) { return t.name.ends_with("self_attn.o_proj.bias"); });
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = true;
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t mtp_layers = r.get({"num_nextn_predict_layers"}, 0);
  for (uint64_t k = 0; k < mtp_layers; ++k) {
    size_t first = m.tensors.size();
    int l = static_cast<int>(layers + k);
    std::string p = "model.mtp_layers." + std::to_string(k) + ".";
    add(m, p + "token_layernorm.weight", {d.hidden}, Role::Mtp, l);
    add(m, p + "hidden_layernorm.weight", {d.hidden}, Role::Mtp, l);
    add(m, p + "input_proj.weight", {d.hidden, 2 * d.hidden}, Role::Mtp, l);
    add_attention_sublayer(m, p, l, d);
    add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp);
    add(m, p + "final_layernorm.weight", {d.hidden}, Role::Mtp, l);
    for (size_t t = first; t < m.tensors.size(); ++t) m.tensors[t].mtp = true;
  }
  m.attention_summary = describe_attention(d);
  if (mtp_layers)
    m.layer_summary += ", " + std::to_string(mtp_layers) + " MTP layer(s) (model.mtp_layers)";
  // Qwen2-VL's multimodal RoPE switch; MiMo is text-only and leaves it false.
  m.structure_irrelevant_fields = {"use_mrope", "tokenizer_class"};
  return m;
}

}  // namespace hfi::arch
