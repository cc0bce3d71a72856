// IBM Granite 3.x: Llama's tensor layout plus four scalar multipliers (embedding_multiplier on the
// input embeddings, residual_multiplier on each sublayer output, attention_multiplier replacing
// 1/sqrt(head_dim), logits_scaling dividing the logits). They are plain numbers in the forward
// pass and add no tensors. GraniteMoE keeps the attention and swaps the MLP for a block_sparse_moe
// whose experts are fused: input_linear [E, 2*inter, hidden] (gate and up stacked), output_linear
// [E, hidden, inter], and a router.layer [E, hidden].
#include <cstdio>

#include "arch/families/families.hpp"

namespace hfi::arch {
namespace {

// The multipliers the config sets, for the summary; they scale activations, not tensors.
std::string describe_granite_multipliers(const ConfigReader& r) {
  std::string text;
  auto item = [&](const char* key, const char* what) {
    if (const Json* f = r.field({key}); f && f->is_number())
      text += (text.empty() ? "" : ", ") + std::string(what) + format_number(f->as_double().value_or(0));
  };
  item("embedding_multiplier", "embeddings ×");
  item("residual_multiplier", "residual branches ×");
  item("attention_multiplier", "attention scores ×");
  item("logits_scaling", "logits ÷");
  return text.empty() ? "" : "; scalar multipliers, no tensors: " + text;
}

AttentionDims granite_attention(const ConfigReader& r) {
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = d.o_bias = r.flag({"attention_bias"}, false);
  return d;
}

}  // namespace

// Granite's dense layers are Llama's (q/k/v/o biases all follow attention_bias, mlp_bias the MLP).
Result<ArchModel> granite_spec(const ModelConfig& cfg) {
  ArchModel m = dense_decoder(cfg, "granite", false, false);
  m.layer_summary += describe_granite_multipliers(ConfigReader(cfg));
  return m;
}

Result<ArchModel> granitemoe_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "granitemoe";
  AttentionDims d = granite_attention(r);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t experts = r.need({"num_local_experts"});
  uint64_t top_k = r.need({"num_experts_per_tok"});
  uint64_t inter = r.need({"intermediate_size"});  // per expert
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_attention_sublayer(m, p, l, d);
    add(m, p + "block_sparse_moe.router.layer.weight", {experts, d.hidden}, Role::Router, l);
    size_t first = m.tensors.size();
    add(m, p + "block_sparse_moe.input_linear.weight", {experts, 2 * inter, d.hidden}, Role::RoutedExpert, l);
    add(m, p + "block_sparse_moe.output_linear.weight", {experts, d.hidden, inter}, Role::RoutedExpert, l);
    mark_routed(m, first, static_cast<uint32_t>(top_k), static_cast<uint32_t>(experts));
  }
  finish_llama_like(m, r, layers, d);
  m.layer_summary = std::to_string(layers) + " × MoE (" + std::to_string(experts) + " fused experts, top-" +
                    std::to_string(top_k) + ", softmax router)" + describe_granite_multipliers(r);
  return m;
}

}  // namespace hfi::arch
