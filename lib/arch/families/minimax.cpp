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

namespace {

// One lightning-attention layer's projections, gate and norm (MiniMax-M1, Text-01 and the
// transformers port share them).
void add_lightning_attention(ArchModel& m, const std::string& q, int l, uint64_t hidden, uint64_t inner) {
  add(m, q + "qkv_proj.weight", {3 * inner, hidden}, Role::LinearAttention, l);
  add(m, q + "output_gate.weight", {inner, hidden}, Role::LinearAttention, l);
  add(m, q + "norm.weight", {inner}, Role::LinearAttention, l);
  add(m, q + "out_proj.weight", {hidden, inner}, Role::LinearAttention, l);
}

}  // namespace

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
      add_lightning_attention(m, q, l, d.hidden, inner);
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


// MiniMax-Text-01 as MiniMax released it (remote code, model_type minimax_text_01,
// MiniMaxText01ForCausalLM): M1 was trained from it and keeps its code, config fields and tensor
// layout; the two differ only in config values (context length, vocabulary tokens), so this is
// minimax_m1_spec under its own family name.
Result<ArchModel> minimax_text_01_spec(const ModelConfig& cfg) {
  auto m = minimax_m1_spec(cfg);
  if (m) m->family = "minimax_text_01";
  return m;
}

namespace {

// A lightning-attention mixer as minimax_m1_spec writes it (qkv_proj, sigmoid output_gate, RMSNorm
// over the heads, out_proj). A shared block would serve both specs; M1's stays inline above.

}  // namespace

// MiniMax in transformers (model_type minimax: MiniMax-Text-01-hf). The same network as the remote
// code above, with config fields renamed: layer_types ("linear_attention" / "full_attention")
// replaces attn_type_list, {full_attn,linear_attn,mlp}_{alpha,beta}_factor the layernorm_*
// residual weights. Tensor names are the remote code's (Mixtral-style block_sparse_moe). The
// in-library lightning module registers its decay tables (slope_rate [heads, 1, 1], query_decay and
// key_decay [heads, block_size, 1], diagonal_decay [1, heads, block_size, block_size]) as persistent
// buffers, so a checkpoint saved by transformers may carry them: optional Buffer tensors.
Result<ArchModel> minimax_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "minimax";
  AttentionDims d = read_attention_dims(r);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t experts = r.need({"num_local_experts"});
  uint64_t top_k = r.need({"num_experts_per_tok"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t block = r.get({"block_size"}, 256);  // MiniMaxConfig's default
  bool shared = r.get({"shared_intermediate_size"}, 0) > 0;
  uint64_t inner = d.heads * d.head_dim;
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));

  // layer_types, or the remote code's attn_type_list (1 = softmax) in configs that kept it.
  std::vector<bool> softmax(layers, false);
  if (const Json* types = cfg.field({"layer_types"}); types && types->is_array()) {
    if (types->items().size() != layers)
      throw SpecError("config.json: layer_types has " + std::to_string(types->items().size()) + " entries for " +
                      std::to_string(layers) + " layers");
    for (uint64_t i = 0; i < layers; ++i) {
      const Json& t = types->items()[i];
      std::string s = t.is_string() ? t.as_string() : "";
      if (s == "full_attention") softmax[i] = true;
      else if (s != "linear_attention")
        throw SpecError("config.json: layer_types[" + std::to_string(i) + "] is \"" + s + "\", not linear_attention or full_attention");
    }
  } else if (const Json* list = cfg.field({"attn_type_list"}); list && list->is_array() && list->items().size() == layers) {
    for (uint64_t i = 0; i < layers; ++i) softmax[i] = list->items()[i].as_int().value_or(0) == 1;
  } else {
    throw SpecError("config.json: layer_types must list one attention type per layer");
  }

  uint64_t state = checked_product("the lightning attention state", {d.heads, d.head_dim, d.head_dim});
  uint64_t softmax_count = 0;
  reserve_layers(m, layers, 3 * experts + 16);
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
      add_lightning_attention(m, q, l, d.hidden, inner);
      for (auto& [name, shape] : std::vector<std::pair<std::string, Shape>>{
               {"slope_rate", {d.heads, 1, 1}},
               {"query_decay", {d.heads, block, 1}},
               {"key_decay", {d.heads, block, 1}},
               {"diagonal_decay", {1, d.heads, block, block}}}) {
        add(m, q + name, shape, Role::Buffer, l);
        m.tensors.back().optional = true;
        m.tensors.back().optional_part = true;
      }
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
                      " elements per layer and sequence, counted at the KV dtype");
  m.attention_summary = std::to_string(softmax_count) + " softmax layers (" + describe_attention(d) + ") + " +
                        std::to_string(layers - softmax_count) + " lightning-attention layers (" +
                        std::to_string(d.heads) + " heads × " + std::to_string(d.head_dim) + ", output gate, block " +
                        std::to_string(block) + ")";
  m.position_summary = describe_rope(r) + " on softmax layers; lightning layers use per-head decay, no positions";
  m.norm_summary = "RMSNorm, residual taken after the norm";
  m.activation_summary = describe_activation(r, true);
  m.layer_summary = std::to_string(layers) + " × MoE (" + std::to_string(experts) + " experts, top-" +
                    std::to_string(top_k) + (shared ? " + shared MLP" : "") + ")";
  // Residual weights (a scalar multiply each), the remote code's leftovers the in-library code
  // does not read (postnorm is always on there; rotary_dim: RoPE spans head_dim) and routing
  // training switches.
  m.structure_irrelevant_fields = {"full_attn_alpha_factor", "full_attn_beta_factor", "linear_attn_alpha_factor",
                                   "linear_attn_beta_factor", "mlp_alpha_factor", "mlp_beta_factor", "postnorm",
                                   "rotary_dim", "shared_moe_mode", "router_aux_loss_coef", "router_jitter_noise",
                                   "output_router_logits"};
  return m;
}

}  // namespace hfi::arch
