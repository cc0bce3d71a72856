// Pre-Llama and Llama-adjacent decoders that store attention or MLP differently from Llama:
//   phi3       - Llama layout with q/k/v fused into qkv_proj and gate/up fused into gate_up_proj.
//   phi        - one LayerNorm per layer feeding attention and MLP in parallel, biased q/k/v/dense,
//                fc1/fc2 GELU MLP, partial rotary, final_layernorm, lm_head with a bias.
//   gpt2       - Conv1D weights stored [in, out], fused c_attn, learned positions (wpe), no
//                "model." level (names may have no prefix at all: anchored on wte.weight).
//   falcon     - fused query_key_value for MHA, MQA (one KV head) or grouped KV
//                (new_decoder_architecture), parallel attention, word_embeddings, no linear bias.
// Old GPT-2 checkpoints also carry non-parameter buffers (causal-mask tables, the masked_bias
// constant). They are listed as optional tensors of role Buffer: a file that has them reconciles,
// one that lacks them is not missing anything, and the parameter total is what the file holds (the
// Hub counts them the same way); they are never active (no multiply-adds).
#include <cstdio>

#include "arch/families/families.hpp"

namespace hfi::arch {

namespace {


// A stored buffer that is not a parameter; present in some writers' files only.
void add_buffer(ArchModel& m, const std::string& name, Shape shape, int layer) {
  add(m, name, std::move(shape), Role::Buffer, layer);
  m.tensors.back().optional = true;
}

std::string rope_with_fraction(const ConfigReader& r, double fraction) {
  std::string out = describe_rope(r);
  if (fraction > 0 && fraction < 1) out += ", rotary on " + format_number(fraction * 100) + "% of head_dim";
  return out;
}

}  // namespace

// ---- phi3 --------------------------------------------------------------------------------------

Result<ArchModel> phi3_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "phi3";
  AttentionDims d = read_attention_dims(r);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t vocab = r.need({"vocab_size"});
  bool tied = r.flag({"tie_word_embeddings"}, false);
  bool bias = r.flag({"attention_bias"}, false);
  double rotary = r.number({"partial_rotary_factor"}, 1.0);
  add_embeddings(m, vocab, d.hidden, tied);
  uint64_t q = d.heads * d.head_dim, kv = d.kv_heads * d.head_dim;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = layer_prefix("model.layers.", i);
    add(m, p + "input_layernorm.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "post_attention_layernorm.weight", {d.hidden}, Role::Norm, l);
    add_linear(m, p + "self_attn.qkv_proj", q + 2 * kv, d.hidden, Role::Attention, l, bias);
    add_linear(m, p + "self_attn.o_proj", d.hidden, q, Role::Attention, l, bias);
    add(m, p + "mlp.gate_up_proj.weight", {2 * inter, d.hidden}, Role::Mlp, l);
    add(m, p + "mlp.down_proj.weight", {d.hidden, inter}, Role::Mlp, l);
  }
  d.qkv_bias = bias;
  finish_llama_like(m, r, layers, d);
  m.attention_summary += ", fused qkv_proj";
  m.position_summary = rope_with_fraction(r, rotary);
  m.activation_summary += ", fused gate_up_proj";
  // Phi-3.5 / Phi-4-mini configs set sliding_window beyond max_position_embeddings: no token ever
  // leaves the window, so those layers cache like full attention.
  uint64_t max_positions = r.get({"max_position_embeddings"}, 0);
  for (auto& a : m.attention)
    if (a.kind == AttentionKind::Sliding && max_positions > 0 && a.window >= max_positions) {
      a.kind = AttentionKind::Full;
      a.window = 0;
    }
  size_t sliding = 0;
  for (const auto& a : m.attention) sliding += a.kind == AttentionKind::Sliding;
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)" +
                    (sliding ? ", sliding window " + std::to_string(r.get({"sliding_window"}, 0)) + " tokens" : "");
  m.structure_irrelevant_fields = {"embd_pdrop", "resid_pdrop", "original_max_position_embeddings"};
  return m;
}

// ---- phi ---------------------------------------------------------------------------------------

Result<ArchModel> phi_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "phi";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = d.o_bias = true;
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t vocab = r.need({"vocab_size"});
  bool tied = r.flag({"tie_word_embeddings"}, false);
  bool qk_ln = r.flag({"qk_layernorm"}, false);
  double rotary = r.number({"partial_rotary_factor"}, 0.5);
  add(m, "model.embed_tokens.weight", {vocab, d.hidden}, Role::Embedding);
  uint64_t q = d.heads * d.head_dim, kv = d.kv_heads * d.head_dim;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = layer_prefix("model.layers.", i);
    add_layernorm(m, p + "input_layernorm", d.hidden, l);
    add_linear(m, p + "self_attn.q_proj", q, d.hidden, Role::Attention, l, true);
    add_linear(m, p + "self_attn.k_proj", kv, d.hidden, Role::Attention, l, true);
    add_linear(m, p + "self_attn.v_proj", kv, d.hidden, Role::Attention, l, true);
    add_linear(m, p + "self_attn.dense", d.hidden, q, Role::Attention, l, true);
    if (qk_ln) {
      // LayerNorm over head_dim on q and k (weight and bias), shared by all heads.
      for (const char* n : {"self_attn.q_layernorm", "self_attn.k_layernorm"}) {
        add(m, p + n + ".weight", {d.head_dim}, Role::Attention, l);
        add(m, p + n + ".bias", {d.head_dim}, Role::Attention, l);
      }
    }
    add_linear(m, p + "mlp.fc1", inter, d.hidden, Role::Mlp, l, true);
    add_linear(m, p + "mlp.fc2", d.hidden, inter, Role::Mlp, l, true);
  }
  add_layernorm(m, "model.final_layernorm", d.hidden, -1);
  add_lm_head(m, "lm_head", vocab, d.hidden, tied, true);
  add_attention_layers(m, r, layers, d);
  m.attention_summary = describe_attention(d) + ", dense bias" + (qk_ln ? ", QK LayerNorm" : "");
  m.position_summary = rope_with_fraction(r, rotary);
  m.norm_summary = "LayerNorm with bias, one per layer (attention and MLP in parallel)";
  m.activation_summary = describe_activation(r, false, "gelu_new") + " (fc1/fc2)";
  m.layer_summary = std::to_string(layers) + " × (parallel attention + dense MLP)";
  m.structure_irrelevant_fields = {"embd_pdrop", "resid_pdrop"};
  return m;
}

// ---- gpt2 --------------------------------------------------------------------------------------

Result<ArchModel> gpt2_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "gpt2";
  m.prefix_anchor = "wte.weight";
  AttentionDims d;
  d.hidden = r.need({"n_embd", "hidden_size"});
  d.heads = r.need({"n_head", "num_attention_heads"});
  d.kv_heads = d.heads;
  d.head_dim = d.hidden / d.heads;
  d.qkv_bias = d.o_bias = true;
  if (d.head_dim == 0 || d.head_dim * d.heads != d.hidden) throw SpecError("config.json: n_embd is not a multiple of n_head");
  uint64_t layers = r.need({"n_layer", "num_hidden_layers"});
  uint64_t positions = r.need({"n_positions", "max_position_embeddings"});
  uint64_t inter = r.get({"n_inner"}, 0);
  if (inter == 0) inter = 4 * d.hidden;
  uint64_t vocab = r.need({"vocab_size"});
  bool tied = r.flag({"tie_word_embeddings"}, true);
  if (r.flag({"add_cross_attention"}, false))
    throw SpecError("config.json: add_cross_attention (GPT-2 as a decoder of an encoder-decoder) is not described by this spec");
  add(m, "model.wte.weight", {vocab, d.hidden}, Role::Embedding);
  add(m, "model.wpe.weight", {positions, d.hidden}, Role::Embedding);
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = layer_prefix("model.h.", i);
    add_layernorm(m, p + "ln_1", d.hidden, l);
    add_layernorm(m, p + "ln_2", d.hidden, l);
    // Conv1D: weight [in, out].
    add(m, p + "attn.c_attn.weight", {d.hidden, 3 * d.hidden}, Role::Attention, l);
    add(m, p + "attn.c_attn.bias", {3 * d.hidden}, Role::Attention, l);
    add(m, p + "attn.c_proj.weight", {d.hidden, d.hidden}, Role::Attention, l);
    add(m, p + "attn.c_proj.bias", {d.hidden}, Role::Attention, l);
    add(m, p + "mlp.c_fc.weight", {d.hidden, inter}, Role::Mlp, l);
    add(m, p + "mlp.c_fc.bias", {inter}, Role::Mlp, l);
    add(m, p + "mlp.c_proj.weight", {inter, d.hidden}, Role::Mlp, l);
    add(m, p + "mlp.c_proj.bias", {d.hidden}, Role::Mlp, l);
    // Causal-mask table and the masked_bias constant written by older transformers versions.
    add_buffer(m, p + "attn.bias", {1, 1, positions, positions}, l);
    add_buffer(m, p + "attn.masked_bias", {}, l);
  }
  add_layernorm(m, "model.ln_f", d.hidden, -1);
  add_lm_head(m, "lm_head", vocab, d.hidden, tied);
  add_attention_layers(m, r, layers, d);
  m.attention_summary = describe_attention(d) + ", fused c_attn (Conv1D, stored [in, out])";
  m.position_summary = "learned absolute positions (wpe), " + std::to_string(positions) + " positions";
  m.norm_summary = "LayerNorm with bias";
  m.activation_summary = describe_activation(r, false, "gelu_new");
  m.layer_summary = std::to_string(layers) + " × (attention + dense MLP)";
  m.notes.push_back("older GPT-2 files store attn.bias / attn.masked_bias causal-mask buffers; they are counted as stored tensors, not parameters of the network");
  m.structure_irrelevant_fields = {"attn_pdrop", "embd_pdrop", "resid_pdrop", "layer_norm_epsilon", "n_ctx",
                                   "scale_attn_weights", "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn",
                                   "summary_type", "summary_use_proj", "summary_activation", "summary_proj_to_labels",
                                   "summary_first_dropout", "task_specific_params"};
  return m;
}

// ---- falcon ------------------------------------------------------------------------------------

Result<ArchModel> falcon_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "falcon";
  m.prefix_anchor = "word_embeddings.weight";
  AttentionDims d;
  d.hidden = r.need({"hidden_size", "n_embed"});
  d.heads = r.need({"num_attention_heads", "n_head"});
  d.head_dim = d.hidden / d.heads;
  if (d.head_dim == 0) throw SpecError("config.json: head_dim is 0");
  bool new_arch = r.flag({"new_decoder_architecture"}, false);
  bool multi_query = r.flag({"multi_query"}, true);
  bool parallel = r.flag({"parallel_attn"}, true);
  bool bias = r.flag({"bias"}, false);
  bool alibi = r.flag({"alibi"}, false);
  uint64_t kv_field = r.get({"num_kv_heads", "n_head_kv"}, d.heads);
  d.kv_heads = new_arch || !multi_query ? kv_field : 1;
  d.qkv_bias = d.o_bias = bias;
  uint64_t layers = r.need({"num_hidden_layers", "n_layer"});
  uint64_t vocab = r.need({"vocab_size"});
  uint64_t ffn = r.get({"ffn_hidden_size"}, 0);
  if (ffn == 0) ffn = 4 * d.hidden;
  uint64_t lns = r.get({"num_ln_in_parallel_attn"}, new_arch ? 2 : 0);
  bool tied = r.flag({"tie_word_embeddings"}, true);
  add(m, "model.word_embeddings.weight", {vocab, d.hidden}, Role::Embedding);
  uint64_t qkv = new_arch ? (d.heads + 2 * d.kv_heads) * d.head_dim
                          : multi_query ? d.hidden + 2 * d.head_dim : 3 * d.hidden;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = layer_prefix("model.h.", i);
    if (new_arch && lns == 2) {
      add_layernorm(m, p + "ln_attn", d.hidden, l);
      add_layernorm(m, p + "ln_mlp", d.hidden, l);
    } else {
      add_layernorm(m, p + "input_layernorm", d.hidden, l);
      if (!parallel) add_layernorm(m, p + "post_attention_layernorm", d.hidden, l);
    }
    add_linear(m, p + "self_attention.query_key_value", qkv, d.hidden, Role::Attention, l, bias);
    add_linear(m, p + "self_attention.dense", d.hidden, d.hidden, Role::Attention, l, bias);
    add_linear(m, p + "mlp.dense_h_to_4h", ffn, d.hidden, Role::Mlp, l, bias);
    add_linear(m, p + "mlp.dense_4h_to_h", d.hidden, ffn, Role::Mlp, l, bias);
  }
  add_layernorm(m, "model.ln_f", d.hidden, -1);
  add_lm_head(m, "lm_head", vocab, d.hidden, tied);
  add_attention_layers(m, r, layers, d);
  m.attention_summary = describe_attention(d) + ", fused query_key_value" +
                        (new_arch ? " (grouped by KV head)" : multi_query ? " (multi-query)" : "");
  m.position_summary = alibi ? "ALiBi" : describe_rope(r);
  m.norm_summary = std::string("LayerNorm with bias") +
                   (new_arch && lns == 2 ? ", separate ln_attn and ln_mlp" : parallel ? ", one per layer" : "");
  m.activation_summary = r.config().string({"activation"}).value_or("gelu");
  m.layer_summary = std::to_string(layers) + " × (" + (parallel || new_arch ? "parallel " : "") + "attention + dense MLP)";
  m.structure_irrelevant_fields = {"layer_norm_epsilon"};
  return m;
}

}  // namespace hfi::arch
