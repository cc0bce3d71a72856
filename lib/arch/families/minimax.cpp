// MiniMax-M1 (remote code, MiniMaxM1ForCausalLM): a hybrid MoE decoder. attn_type_list marks each
// layer as lightning attention (0: linear attention with a per-head decay, no KV cache) or softmax
// attention (1: GQA with partial RoPE over rotary_dim). Lightning layers project q, k and v in one
// qkv_proj, gate the output with a sigmoid output_gate, RMS-normalise it (norm) and project back
// with out_proj. Every layer's MLP is Mixtral-style: block_sparse_moe.gate + experts w1/w2/w3,
// top-k of num_local_experts, optionally mixed with a shared MLP (shared_mlp + a 1-wide
// coefficient gate) when shared_intermediate_size > 0. The layernorm_*_alpha/beta values only
// weight the residual sums.
#include "arch/families/families.hpp"

namespace hfi::arch {

Result<ArchModel> minimax_m1_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "minimax_m1";
  AttentionDims d = read_attention_dims(r);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t experts = r.need({"num_local_experts"});
  uint64_t top_k = r.need({"num_experts_per_tok"});
  uint64_t inter = r.need({"intermediate_size"});
  bool shared = r.get({"shared_intermediate_size"}, 0) > 0;  // the shared MLP is intermediate_size wide
  uint64_t inner = d.heads * d.head_dim;
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));

  std::vector<bool> softmax(layers, false);
  const Json* types = cfg.field({"attn_type_list"});
  if (!types || !types->is_array() || types->items().size() != layers)
    throw SpecError("config.json: attn_type_list must list one attention type per layer");
  for (uint64_t i = 0; i < layers; ++i) softmax[i] = types->items()[i].as_int().value_or(0) == 1;

  // Lightning attention keeps one float32 key-value state per head, head_dim x head_dim, whatever
  // the context (vLLM's MiniMax cache: [heads, head_dim, head_dim] per linear layer); no convolution.
  uint64_t state = checked_product("the lightning attention state", {d.heads, d.head_dim, d.head_dim});
  uint64_t softmax_count = 0;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add(m, p + "input_layernorm.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "post_attention_layernorm.weight", {d.hidden}, Role::Norm, l);
    AttentionLayer a;
    if (softmax[i]) {
      add_gqa_attention(m, p + "self_attn.", l, d);
      a = attention_layer(d);
      ++softmax_count;
    } else {
      std::string q = p + "self_attn.";
      add(m, q + "qkv_proj.weight", {3 * inner, d.hidden}, Role::LinearAttention, l);
      add(m, q + "output_gate.weight", {inner, d.hidden}, Role::LinearAttention, l);
      add(m, q + "norm.weight", {inner}, Role::LinearAttention, l);
      add(m, q + "out_proj.weight", {d.hidden, inner}, Role::LinearAttention, l);
      a.kind = AttentionKind::None;
      a.recurrent_state_elements = state;
      a.recurrent_kind = "lightning_attention";
    }
    m.attention.push_back(a);
    add_mixtral_moe(m, p + "block_sparse_moe.", l, d.hidden, inter, experts, top_k);
    if (shared) {
      add_swiglu(m, p + "shared_mlp.", l, d.hidden, inter, Role::SharedExpert);
      add(m, p + "coefficient.weight", {1, d.hidden}, Role::Router, l);
    }
  }

  if (softmax_count < layers)
    m.notes.push_back("lightning-attention state: " + std::to_string(state) +
                      " elements per layer and sequence, kept in float32 by the reference code; counted at the KV dtype");
  uint64_t rotary = r.get({"rotary_dim"}, d.head_dim);
  m.attention_summary = std::to_string(softmax_count) + " softmax layers (" + describe_attention(d) + ") + " +
                        std::to_string(layers - softmax_count) + " lightning-attention layers (" +
                        std::to_string(d.heads) + " heads × " + std::to_string(d.head_dim) + ", output gate)";
  m.position_summary = describe_rope(r) + " on softmax layers, rotary_dim " + std::to_string(rotary) +
                       "; lightning layers use per-head decay, no positions";
  m.norm_summary = std::string("RMSNorm") + (r.flag({"postnorm"}, false) ? ", residual taken after the norm (postnorm)" : "");
  m.activation_summary = describe_activation(r, true);
  m.layer_summary = std::to_string(layers) + " × MoE (" + std::to_string(experts) + " experts, top-" +
                    std::to_string(top_k) + (shared ? " + shared MLP" : "") + ")";
  // Residual weights (no tensors, a scalar multiply) and the shared-expert mixing rule.
  m.structure_irrelevant_fields = {"layernorm_full_attention_alpha", "layernorm_full_attention_beta",
                                   "layernorm_linear_attention_alpha", "layernorm_linear_attention_beta",
                                   "layernorm_mlp_alpha", "layernorm_mlp_beta", "shared_moe_mode"};
  return m;
}

}  // namespace hfi::arch
