// Hybrid decoders whose non-attention layers carry a fixed-size recurrent state instead of a KV
// cache: qwen3_next (gated delta-net linear attention mixed with gated full attention, 512-expert
// MoE with a gated shared expert, an optional `mtp.*` draft module) and Qwen3.5's MoE text model
// (the same plan with the delta-net input projections stored split), lfm2 (gated short
// convolutions mixed with GQA) and nemotron_h (Mamba2, attention and squared-ReLU MLP layers in
// the order of hybrid_override_pattern). Only their attention layers cache keys and values.
//
// Recurrent state is counted as the elements one sequence needs between tokens, the way vLLM and
// SGLang size their state caches: a causal depthwise convolution of kernel K keeps its last K - 1
// inputs (transformers' own caches keep K columns, one of them stale), and the SSM / delta-rule
// state has the shape its recurrence updates.
#include <cstdio>

#include "arch/families/families.hpp"

namespace hfi::arch {
namespace {

AttentionLayer recurrent_layer(uint64_t elements, uint64_t ssm_elements, const char* kind) {
  AttentionLayer a;
  a.kind = AttentionKind::None;
  a.recurrent_state_elements = elements;
  a.recurrent_ssm_elements = ssm_elements;
  a.recurrent_kind = kind;
  return a;
}

// A layer with no sequence mixer (Nemotron-H's MLP and MoE layers): nothing cached.
AttentionLayer mixer_free_layer() {
  AttentionLayer a;
  a.kind = AttentionKind::None;
  return a;
}

// ---------------------------------------------------------------------------------------------
// qwen3_next

struct DeltaNetDims {
  uint64_t hidden, key_heads, key_dim, value_heads, value_dim, conv_kernel;
  uint64_t keys() const { return key_heads * key_dim; }
  uint64_t values() const { return value_heads * value_dim; }
  uint64_t conv_channels() const {  // q, k and v are convolved
    return checked_sum("the linear attention's q, k and v widths", {checked_product("linear key width", {2, keys()}), values()});
  }
};

void add_gated_deltanet(ArchModel& m, const std::string& p, int layer, const DeltaNetDims& d, bool split = false) {
  if (split) {
    // Qwen3.5: the same projections stored one per output: qkv, the output gate z, a and b.
    add(m, p + "in_proj_qkv.weight", {d.conv_channels(), d.hidden}, Role::LinearAttention, layer);
    add(m, p + "in_proj_z.weight", {d.values(), d.hidden}, Role::LinearAttention, layer);
    add(m, p + "in_proj_a.weight", {d.value_heads, d.hidden}, Role::LinearAttention, layer);
    add(m, p + "in_proj_b.weight", {d.value_heads, d.hidden}, Role::LinearAttention, layer);
  } else {
    // q, k, v and the output gate z in one projection; beta and the decay input a in another.
    add(m, p + "in_proj_qkvz.weight", {2 * d.keys() + 2 * d.values(), d.hidden}, Role::LinearAttention, layer);
    add(m, p + "in_proj_ba.weight", {2 * d.value_heads, d.hidden}, Role::LinearAttention, layer);
  }
  add(m, p + "conv1d.weight", {d.conv_channels(), 1, d.conv_kernel}, Role::LinearAttention, layer);
  add(m, p + "dt_bias", {d.value_heads}, Role::LinearAttention, layer);
  add(m, p + "A_log", {d.value_heads}, Role::LinearAttention, layer);
  add(m, p + "norm.weight", {d.value_dim}, Role::LinearAttention, layer);  // gated RMSNorm, shared by heads
  add(m, p + "out_proj.weight", {d.hidden, d.values()}, Role::LinearAttention, layer);
}

// Gated attention: q_proj also produces a per-head sigmoid gate, so it is twice as wide.
void add_gated_attention(ArchModel& m, const std::string& p, int layer, const AttentionDims& d, bool gate = true) {
  uint64_t q = d.heads * d.head_dim, kv = d.kv_heads * d.head_dim;
  add(m, p + "q_proj.weight", {gate ? 2 * q : q, d.hidden}, Role::Attention, layer);
  add(m, p + "k_proj.weight", {kv, d.hidden}, Role::Attention, layer);
  add(m, p + "v_proj.weight", {kv, d.hidden}, Role::Attention, layer);
  add(m, p + "o_proj.weight", {d.hidden, q}, Role::Attention, layer);
  add(m, p + "q_norm.weight", {d.head_dim}, Role::Attention, layer);
  add(m, p + "k_norm.weight", {d.head_dim}, Role::Attention, layer);
}

struct QwenNextMoe {
  uint64_t experts, top_k, moe_inter, shared_inter, dense_inter, step;
};

bool qwen_next_sparse(const ModelConfig& cfg, uint64_t layer, const QwenNextMoe& moe) {
  if (const Json* only = cfg.field({"mlp_only_layers"}); only && only->is_array())
    for (const Json& v : only->items())
      if (v.as_uint() == layer) return false;
  return moe.experts > 0 && moe.step > 0 && (layer + 1) % moe.step == 0;
}

void add_qwen_next_mlp(ArchModel& m, const std::string& p, int layer, uint64_t hidden, bool sparse,
                       const QwenNextMoe& moe) {
  if (!sparse) {
    if (moe.dense_inter == 0) throw SpecError("config.json: intermediate_size is needed for dense layers");
    add_swiglu(m, p + "mlp.", layer, hidden, moe.dense_inter, Role::Mlp);
    return;
  }
  add(m, p + "mlp.gate.weight", {moe.experts, hidden}, Role::Router, layer);
  size_t first = m.tensors.size();
  for (uint64_t e = 0; e < moe.experts; ++e)
    add_swiglu(m, p + "mlp.experts." + std::to_string(e) + ".", layer, hidden, moe.moe_inter, Role::RoutedExpert);
  mark_routed(m, first, static_cast<uint32_t>(moe.top_k), static_cast<uint32_t>(moe.experts));
  if (moe.shared_inter > 0) {
    add_swiglu(m, p + "mlp.shared_expert.", layer, hidden, moe.shared_inter, Role::SharedExpert);
    add(m, p + "mlp.shared_expert_gate.weight", {1, hidden}, Role::Router, layer);
  }
}

// Linear (delta-net) layers from layer_types, else every full_attention_interval-th layer is
// full attention (layers 3, 7, 11, ... for the published interval of 4).
std::vector<bool> qwen_next_full_layers(const ConfigReader& r, uint64_t layers) {
  std::vector<bool> full(layers, false);
  uint64_t interval = r.get({"full_attention_interval"}, 4);
  if (const Json* types = r.field({"layer_types"}); types && types->is_array()) {
    if (types->items().size() != layers) throw SpecError("config.json: layer_types does not list every layer");
    for (size_t i = 0; i < layers; ++i) {
      const Json& t = types->items()[i];
      std::string s = t.is_string() ? t.as_string() : "";
      if (s == "full_attention") full[i] = true;
      else if (s != "linear_attention")
        throw SpecError("config.json: layer_types[" + std::to_string(i) + "] is \"" + s + "\"");
    }
    return full;
  }
  for (uint64_t i = 0; i < layers; ++i) full[i] = interval > 0 && (i + 1) % interval == 0;
  return full;
}

}  // namespace

namespace {

// qwen3_next and Qwen3.5's text model (qwen3_5_moe_text) share the layer plan; Qwen3.5 stores the
// delta-net input projections split and can switch the attention output gate off (attn_output_gate).
ArchModel qwen_next_decoder(const ModelConfig& cfg, const char* family, bool qwen3_5) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = family;
  AttentionDims d = read_attention_dims(r);
  d.qk_norm = true;
  if (r.flag({"attention_bias"}, false))
    throw SpecError(std::string("config.json: ") + family + " with attention_bias is not modelled");
  bool gate = !qwen3_5 || r.flag({"attn_output_gate"}, true);
  if (qwen3_5) {
    if (auto state_dtype = cfg.string({"mamba_ssm_dtype"}))
      m.notes.push_back("the delta-net state is kept in " + *state_dtype +
                        " (mamba_ssm_dtype); the recurrent-state figure counts it at the KV dtype");
  }
  DeltaNetDims n{};
  n.hidden = d.hidden;
  n.key_heads = r.need({"linear_num_key_heads"});
  n.key_dim = r.need({"linear_key_head_dim"});
  n.value_heads = r.need({"linear_num_value_heads"});
  n.value_dim = r.need({"linear_value_head_dim"});
  n.conv_kernel = r.need({"linear_conv_kernel_dim"});
  uint64_t layers = r.need({"num_hidden_layers"});
  QwenNextMoe moe{};
  moe.experts = r.get({"num_experts"}, 0);
  moe.top_k = moe.experts ? r.need({"num_experts_per_tok"}) : 0;
  moe.moe_inter = moe.experts ? r.need({"moe_intermediate_size"}) : 0;
  moe.shared_inter = r.get({"shared_expert_intermediate_size"}, 0);
  moe.dense_inter = r.get({"intermediate_size"}, 0);
  moe.step = r.get({"decoder_sparse_step"}, 1);
  // The released checkpoints carry one MTP layer under `mtp.` although config.json has no field
  // for it; later configs name it. Writers that drop MTP (Qwen3-Coder-Next) are not missing it.
  uint64_t mtp_layers = r.get({"num_nextn_predict_layers", "mtp_num_hidden_layers"}, 1);
  uint64_t vocab = r.need({"vocab_size"});
  add_embeddings(m, vocab, d.hidden, r.flag({"tie_word_embeddings"}, false));
  auto full = qwen_next_full_layers(r, layers);

  // Per sequence and delta-net layer (vLLM's gated_delta_net_state_shape):
  //   conv state  = (2 * linear_num_key_heads * linear_key_head_dim
  //                  + linear_num_value_heads * linear_value_head_dim) * (linear_conv_kernel_dim - 1)
  //   delta state = linear_num_value_heads * linear_key_head_dim * linear_value_head_dim
  const uint64_t delta_state = checked_product("the delta state", {n.value_heads, n.key_dim, n.value_dim});
  const uint64_t state = checked_sum("the recurrent state", {checked_product("the conv state", {n.conv_channels(), n.conv_kernel - 1}), delta_state});
  uint64_t sparse_layers = 0, full_count = 0;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add(m, p + "input_layernorm.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "post_attention_layernorm.weight", {d.hidden}, Role::Norm, l);
    if (full[i]) {
      add_gated_attention(m, p + "self_attn.", l, d, gate);
      m.attention.push_back(attention_layer(d));
      ++full_count;
    } else {
      add_gated_deltanet(m, p + "linear_attn.", l, n, qwen3_5);
      m.attention.push_back(recurrent_layer(state, delta_state, "gated_deltanet"));
    }
    bool sparse = qwen_next_sparse(cfg, i, moe);
    sparse_layers += sparse;
    add_qwen_next_mlp(m, p, l, d.hidden, sparse, moe);
  }
  // MTP: fc joins the normed embedding and hidden state, then full-attention MoE layers.
  size_t mtp_first = m.tensors.size();
  if (mtp_layers > 0) {
    add(m, "mtp.fc.weight", {d.hidden, 2 * d.hidden}, Role::Mtp);
    add(m, "mtp.pre_fc_norm_embedding.weight", {d.hidden}, Role::Mtp);
    add(m, "mtp.pre_fc_norm_hidden.weight", {d.hidden}, Role::Mtp);
    add(m, "mtp.norm.weight", {d.hidden}, Role::Mtp);
  }
  for (uint64_t k = 0; k < mtp_layers; ++k) {
    int l = static_cast<int>(layers + k);
    std::string p = "mtp.layers." + std::to_string(k) + ".";
    add(m, p + "input_layernorm.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "post_attention_layernorm.weight", {d.hidden}, Role::Norm, l);
    add_gated_attention(m, p + "self_attn.", l, d, gate);
    add_qwen_next_mlp(m, p, l, d.hidden, moe.experts > 0, moe);
  }
  for (size_t t = mtp_first; t < m.tensors.size(); ++t) {
    m.tensors[t].mtp = true;
    m.tensors[t].optional = true;
  }

  m.attention_summary = std::to_string(full_count) + " gated-attention layers (" + describe_attention(d) +
                        (gate ? ", output gate) + " : ") + ") + std::to_string(layers - full_count) + " gated delta-net layers (" +
                        std::to_string(n.key_heads) + " qk/" + std::to_string(n.value_heads) + " v heads, " +
                        std::to_string(n.key_dim) + "/" + std::to_string(n.value_dim) + " dims, conv " +
                        std::to_string(n.conv_kernel) + ")";
  double partial = r.number({"partial_rotary_factor"}, 1.0);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", partial);
  m.position_summary = describe_rope(r) + (partial < 1.0 ? std::string(", partial rotary ") + buf : "");
  m.norm_summary = "zero-centred RMSNorm; gated RMSNorm in delta-net";
  m.activation_summary = describe_activation(r, true);
  m.layer_summary = std::to_string(layers) + " layers, " + std::to_string(sparse_layers) + " MoE (" +
                    std::to_string(moe.experts) + " experts, top-" + std::to_string(moe.top_k) +
                    (moe.shared_inter ? " + gated shared expert" : "") + ")" +
                    (mtp_layers ? ", " + std::to_string(mtp_layers) + " MTP layer(s) if stored" : "");
  return m;
}

}  // namespace

Result<ArchModel> qwen3_next_spec(const ModelConfig& cfg) { return qwen_next_decoder(cfg, "qwen3_next", false); }
Result<ArchModel> qwen3_5_moe_text_spec(const ModelConfig& cfg) {
  return qwen_next_decoder(cfg, "qwen3_5_moe_text", true);
}

// ---------------------------------------------------------------------------------------------
// lfm2

namespace {

// Attention layers from layer_types ("conv" / "full_attention") or the older full_attn_idxs.
std::vector<bool> lfm2_attention_layers(const ConfigReader& r, uint64_t layers) {
  std::vector<bool> attn(layers, false);
  const Json* types = r.field({"layer_types"});
  const Json* idxs = r.field({"full_attn_idxs"});
  if (types && types->is_array()) {
    if (types->items().size() != layers) throw SpecError("config.json: layer_types does not list every layer");
    for (size_t i = 0; i < layers; ++i) {
      const Json& t = types->items()[i];
      std::string s = t.is_string() ? t.as_string() : "";
      if (s == "full_attention") attn[i] = true;
      else if (s != "conv") throw SpecError("config.json: layer_types[" + std::to_string(i) + "] is \"" + s + "\"");
    }
  } else if (idxs && idxs->is_array()) {
    for (const Json& v : idxs->items()) {
      auto i = v.as_uint();
      if (!i || *i >= layers) throw SpecError("config.json: full_attn_idxs names a layer that does not exist");
      attn[*i] = true;
    }
  } else {
    throw SpecError("config.json: lfm2 needs layer_types or full_attn_idxs");
  }
  return attn;
}

}  // namespace

Result<ArchModel> lfm2_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "lfm2";
  AttentionDims d;
  d.hidden = r.need({"hidden_size"});
  d.heads = r.need({"num_attention_heads", "num_heads"});
  (void)r.get({"num_heads"}, d.heads);  // the older alias, written beside num_attention_heads
  d.kv_heads = r.get({"num_key_value_heads"}, d.heads);
  d.head_dim = d.hidden / d.heads;
  d.qk_norm = true;  // q_layernorm / k_layernorm, one weight per head dimension
  if (r.get({"block_dim"}, d.hidden) != d.hidden) throw SpecError("config.json: block_dim differs from hidden_size");
  uint64_t conv_dim = r.get({"conv_dim"}, d.hidden);
  uint64_t conv_out = r.get({"conv_dim_out"}, d.hidden);
  if (conv_dim != d.hidden || conv_out != d.hidden)
    throw SpecError("config.json: lfm2 with conv_dim / conv_dim_out other than hidden_size is not modelled");
  uint64_t kernel = r.need({"conv_L_cache"});
  bool conv_bias = r.flag({"conv_bias"}, false);
  if (!r.flag({"block_use_swiglu"}, true)) throw SpecError("config.json: lfm2 without SwiGLU blocks is not modelled");
  // The feed-forward width: block_ff_dim (alias intermediate_size), shrunk to 2/3 for SwiGLU,
  // scaled by block_ffn_dim_multiplier and rounded up to block_multiple_of when auto-adjusted.
  uint64_t ff = r.need({"block_ff_dim", "intermediate_size"});
  (void)r.get({"intermediate_size"}, ff);
  if (r.flag({"block_auto_adjust_ff_dim"}, true)) {
    ff = 2 * ff / 3;
    double mult = r.number({"block_ffn_dim_multiplier"}, 1.0);
    ff = static_cast<uint64_t>(mult * static_cast<double>(ff));
    uint64_t multiple = r.get({"block_multiple_of"}, 256);
    if (multiple) ff = multiple * ((ff + multiple - 1) / multiple);
  } else {
    (void)r.number({"block_ffn_dim_multiplier"}, 1.0);
    (void)r.get({"block_multiple_of"}, 256);
  }
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t vocab = r.need({"vocab_size"});
  // HF's Lfm2Config ties the head by default; the first releases wrote no tie field at all.
  bool tied = r.flag({"tie_word_embeddings", "tie_embedding"}, true);
  add(m, "model.embed_tokens.weight", {vocab, d.hidden}, Role::Embedding);
  add(m, "model.embedding_norm.weight", {d.hidden}, Role::Norm);  // the final norm, despite its name
  add_lm_head(m, "lm_head", vocab, d.hidden, tied);

  auto attn = lfm2_attention_layers(r, layers);
  // Per sequence and short-conv layer (vLLM's short_conv_state_shape): the depthwise conv of
  // kernel conv_L_cache keeps its last conv_L_cache - 1 inputs of conv_dim (= hidden_size) channels.
  uint64_t state = conv_dim * (kernel - 1);
  uint64_t attn_count = 0;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add(m, p + "operator_norm.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "ffn_norm.weight", {d.hidden}, Role::Norm, l);
    if (attn[i]) {
      uint64_t q = d.heads * d.head_dim, kv = d.kv_heads * d.head_dim;
      add(m, p + "self_attn.q_proj.weight", {q, d.hidden}, Role::Attention, l);
      add(m, p + "self_attn.k_proj.weight", {kv, d.hidden}, Role::Attention, l);
      add(m, p + "self_attn.v_proj.weight", {kv, d.hidden}, Role::Attention, l);
      add(m, p + "self_attn.out_proj.weight", {d.hidden, q}, Role::Attention, l);
      add(m, p + "self_attn.q_layernorm.weight", {d.head_dim}, Role::Attention, l);
      add(m, p + "self_attn.k_layernorm.weight", {d.head_dim}, Role::Attention, l);
      m.attention.push_back(attention_layer(d));
      ++attn_count;
    } else {
      // in_proj yields the input gate B, the output gate C and x; conv is depthwise over x.
      add(m, p + "conv.in_proj.weight", {3 * d.hidden, d.hidden}, Role::ShortConv, l);
      add(m, p + "conv.conv.weight", {conv_dim, 1, kernel}, Role::ShortConv, l);
      add(m, p + "conv.out_proj.weight", {d.hidden, d.hidden}, Role::ShortConv, l);
      if (conv_bias) {
        add(m, p + "conv.in_proj.bias", {3 * d.hidden}, Role::ShortConv, l);
        add(m, p + "conv.conv.bias", {conv_dim}, Role::ShortConv, l);
        add(m, p + "conv.out_proj.bias", {d.hidden}, Role::ShortConv, l);
      }
      m.attention.push_back(recurrent_layer(state, 0, "short_conv"));
    }
    add(m, p + "feed_forward.w1.weight", {ff, d.hidden}, Role::Mlp, l);  // gate
    add(m, p + "feed_forward.w3.weight", {ff, d.hidden}, Role::Mlp, l);  // up
    add(m, p + "feed_forward.w2.weight", {d.hidden, ff}, Role::Mlp, l);  // down
  }
  m.attention_summary = std::to_string(attn_count) + " attention layers (" + describe_attention(d) + ") + " +
                        std::to_string(layers - attn_count) + " gated short-conv layers (kernel " +
                        std::to_string(kernel) + ")";
  bool rope = r.flag({"use_pos_enc"}, true);
  m.position_summary = rope ? describe_rope(r) : "no positional encoding";
  m.norm_summary = "RMSNorm";
  m.activation_summary = "silu (gated: SwiGLU), feed-forward " + std::to_string(ff);
  m.layer_summary = std::to_string(layers) + " × (conv or attention + dense MLP)";
  m.structure_irrelevant_fields = {"block_norm_eps", "norm_eps", "block_mlp_init_scale", "block_out_init_scale",
                                   "block_use_xavier_init", "conv_use_xavier_init"};
  return m;
}

// ---------------------------------------------------------------------------------------------
// nemotron_h

namespace {

// What a nemotron_h config says about its layers: '*' attention, 'M' Mamba2, '-' MLP, 'E' MoE.
struct NemotronHDims {
  uint64_t hidden = 0, layers = 0, vocab = 0;
  std::string pattern;  // hybrid_override_pattern, one character per layer
  AttentionDims attention;
  // Mamba2: d_inner = mamba_num_heads * mamba_head_dim (expand is not used for it).
  uint64_t mheads = 0, mhead_dim = 0, groups = 0, dstate = 0, kernel = 0, d_inner = 0, conv_dim = 0;
  bool conv_bias = true, proj_bias = false;
  // MLP and MoE: squared-ReLU up/down projections, no gate.
  bool mlp_bias = false;
  uint64_t inter = 0, experts = 0, top_k = 0, moe_inter = 0, shared = 0, shared_inter = 0;
  uint64_t count_m = 0, count_a = 0, count_mlp = 0, count_e = 0;
};

NemotronHDims read_nemotron_h_dims(const ConfigReader& r) {
  NemotronHDims d;
  d.hidden = r.need({"hidden_size"});
  d.layers = r.need({"num_hidden_layers"});
  d.vocab = r.need({"vocab_size"});
  const Json* pattern_field = r.field({"hybrid_override_pattern"});
  if (!pattern_field || !pattern_field->is_string()) throw SpecError("config.json: hybrid_override_pattern is missing");
  d.pattern = pattern_field->as_string();
  if (d.pattern.size() != d.layers)
    throw SpecError("config.json: hybrid_override_pattern has " + std::to_string(d.pattern.size()) + " entries for " +
                    std::to_string(d.layers) + " layers");
  if (r.get({"num_nextn_predict_layers"}, 0) > 0 || r.field({"mtp_hybrid_override_pattern"}))
    throw SpecError("config.json: nemotron_h MTP layers are not modelled");
  if (const Json* latent = r.field({"moe_latent_size"}); latent && !latent->is_null())
    throw SpecError("config.json: nemotron_h latent MoE (moe_latent_size) is not modelled");

  // Attention: plain GQA, no QK-norm; the modeling code applies no rotary embedding.
  AttentionDims& a = d.attention;
  a.hidden = d.hidden;
  a.heads = r.need({"num_attention_heads"});
  a.kv_heads = r.get({"num_key_value_heads"}, a.heads);
  a.head_dim = r.get({"head_dim", "attention_head_dim"}, d.hidden / a.heads);
  a.qkv_bias = a.o_bias = r.flag({"attention_bias"}, false);
  d.mheads = r.need({"mamba_num_heads"});
  d.mhead_dim = r.need({"mamba_head_dim"});
  d.groups = r.need({"n_groups"});
  d.dstate = r.need({"ssm_state_size"});
  d.kernel = r.need({"conv_kernel"});
  d.conv_bias = r.flag({"use_conv_bias"}, true);
  // in_proj / out_proj biases: the remote code keys them on use_bias, newer configs also write
  // mamba_proj_bias; every release has both false.
  d.proj_bias = r.flag({"use_bias"}, false) || r.flag({"mamba_proj_bias"}, false);
  d.d_inner = d.mheads * d.mhead_dim;
  d.conv_dim = checked_sum("the Mamba conv width", {d.d_inner, checked_product("n_groups × ssm_state_size", {2, d.groups, d.dstate})});  // x, B and C
  d.mlp_bias = r.flag({"mlp_bias"}, false);
  d.experts = r.get({"n_routed_experts"}, 0);
  for (char c : d.pattern) {
    if (c == 'M') ++d.count_m;
    else if (c == '*') ++d.count_a;
    else if (c == '-') ++d.count_mlp;
    else if (c == 'E') ++d.count_e;
    else throw SpecError(std::string("config.json: hybrid_override_pattern has an unknown layer '") + c + "'");
  }
  d.inter = d.count_mlp ? r.need({"intermediate_size"}) : r.get({"intermediate_size"}, 0);
  d.top_k = d.count_e ? r.need({"num_experts_per_tok"}) : 0;
  d.moe_inter = d.count_e ? r.need({"moe_intermediate_size"}) : 0;
  d.shared = d.count_e ? r.get({"n_shared_experts"}, 0) : 0;
  d.shared_inter = d.shared ? r.need({"moe_shared_expert_intermediate_size"}) * d.shared : 0;
  if (d.count_e && d.experts == 0) throw SpecError("config.json: MoE layers ('E') need n_routed_experts");
  return d;
}

// Per sequence and Mamba2 layer (vLLM's mamba2_state_shape):
//   conv state = (mamba_num_heads * mamba_head_dim + 2 * n_groups * ssm_state_size) * (conv_kernel - 1)
//   SSM state  = mamba_num_heads * mamba_head_dim * ssm_state_size
uint64_t mamba2_state_elements(const NemotronHDims& d) {
  return checked_sum("the Mamba state", {checked_product("the conv state", {d.conv_dim, d.kernel - 1}),
                                         checked_product("the SSM state", {d.mheads, d.mhead_dim, d.dstate})});
}

void add_nemotron_h_moe(ArchModel& m, const std::string& x, int l, const NemotronHDims& d) {
  add(m, x + "gate.weight", {d.experts, d.hidden}, Role::Router, l);
  add(m, x + "gate.e_score_correction_bias", {d.experts}, Role::RoutingBias, l);
  size_t first = m.tensors.size();
  for (uint64_t e = 0; e < d.experts; ++e) {
    std::string q = x + "experts." + std::to_string(e) + ".";
    add(m, q + "up_proj.weight", {d.moe_inter, d.hidden}, Role::RoutedExpert, l);
    add(m, q + "down_proj.weight", {d.hidden, d.moe_inter}, Role::RoutedExpert, l);
  }
  mark_routed(m, first, static_cast<uint32_t>(d.top_k), static_cast<uint32_t>(d.experts));
  if (d.shared_inter) {
    add(m, x + "shared_experts.up_proj.weight", {d.shared_inter, d.hidden}, Role::SharedExpert, l);
    add(m, x + "shared_experts.down_proj.weight", {d.hidden, d.shared_inter}, Role::SharedExpert, l);
  }
}

// Layer i: its norm, then the mixer its pattern character names.
void add_nemotron_h_layer(ArchModel& m, uint64_t i, const NemotronHDims& d) {
  int l = static_cast<int>(i);
  std::string p = "model.layers." + std::to_string(i) + ".";
  add(m, p + "norm.weight", {d.hidden}, Role::Norm, l);
  std::string x = p + "mixer.";
  switch (d.pattern[i]) {
    case 'M':
      add_linear(m, x + "in_proj", d.d_inner + d.conv_dim + d.mheads, d.hidden, Role::Ssm, l, d.proj_bias);  // z, xBC, dt
      add(m, x + "conv1d.weight", {d.conv_dim, 1, d.kernel}, Role::Ssm, l);
      if (d.conv_bias) add(m, x + "conv1d.bias", {d.conv_dim}, Role::Ssm, l);
      add(m, x + "dt_bias", {d.mheads}, Role::Ssm, l);
      add(m, x + "A_log", {d.mheads}, Role::Ssm, l);
      add(m, x + "D", {d.mheads}, Role::Ssm, l);
      add(m, x + "norm.weight", {d.d_inner}, Role::Ssm, l);  // gated RMSNorm over n_groups groups
      add_linear(m, x + "out_proj", d.hidden, d.d_inner, Role::Ssm, l, d.proj_bias);
      m.attention.push_back(recurrent_layer(mamba2_state_elements(d), checked_product("the SSM state", {d.mheads, d.mhead_dim, d.dstate}), "mamba2"));
      break;
    case '*':
      add_gqa_attention(m, x, l, d.attention);
      m.attention.push_back(attention_layer(d.attention));
      break;
    case '-':
      add(m, x + "up_proj.weight", {d.inter, d.hidden}, Role::Mlp, l);
      add(m, x + "down_proj.weight", {d.hidden, d.inter}, Role::Mlp, l);
      if (d.mlp_bias) {
        add(m, x + "up_proj.bias", {d.inter}, Role::Mlp, l);
        add(m, x + "down_proj.bias", {d.hidden}, Role::Mlp, l);
      }
      m.attention.push_back(mixer_free_layer());
      break;
    case 'E':
      add_nemotron_h_moe(m, x, l, d);
      m.attention.push_back(mixer_free_layer());
      break;
  }
}

void describe_nemotron_h(ArchModel& m, const NemotronHDims& d, const ConfigReader& r, const ModelConfig& cfg) {
  m.attention_summary = std::to_string(d.count_a) + " attention layers (" + describe_attention(d.attention) + ") + " +
                        std::to_string(d.count_m) + " Mamba2 layers (" + std::to_string(d.mheads) + " heads × " +
                        std::to_string(d.mhead_dim) + ", state " + std::to_string(d.dstate) + ", " +
                        std::to_string(d.groups) + " groups, conv " + std::to_string(d.kernel) + ")";
  m.position_summary = "no positional encoding in attention (rope_theta is not applied), max " +
                       std::to_string(r.get({"max_position_embeddings"}, 0)) + " positions";
  m.norm_summary = "RMSNorm (one pre-norm per layer); gated RMSNorm in Mamba2";
  std::string act = cfg.string({"mlp_hidden_act"}).value_or("relu2");
  m.activation_summary = act == "relu2" ? "squared ReLU (ungated)" : act + " (ungated)";
  m.layer_summary = std::to_string(d.layers) + " layers from hybrid_override_pattern: " + std::to_string(d.count_m) +
                    " Mamba2, " + std::to_string(d.count_a) + " attention, " + std::to_string(d.count_mlp) + " MLP, " +
                    std::to_string(d.count_e) + " MoE" +
                    (d.count_e ? " (" + std::to_string(d.experts) + " routed top-" + std::to_string(d.top_k) +
                                     (d.shared ? " + " + std::to_string(d.shared) + " shared" : "") +
                                     ", sigmoid router with selection bias)"
                               : "");
  if (auto dtype = cfg.string({"mamba_ssm_cache_dtype"}))
    m.notes.push_back("mamba_ssm_cache_dtype " + *dtype +
                      ": inference engines keep the Mamba2 SSM state in that dtype; the state figure uses the KV element size");
}

}  // namespace

Result<ArchModel> nemotron_h_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "nemotron_h";
  // The stack lives under backbone.: backbone.embeddings, backbone.layers.N.{norm,mixer}, norm_f.
  m.prefix_anchor = "embeddings.weight";
  const NemotronHDims d = read_nemotron_h_dims(r);
  add(m, "model.embeddings.weight", {d.vocab, d.hidden}, Role::Embedding);
  add(m, "model.norm_f.weight", {d.hidden}, Role::Norm);
  add_lm_head(m, "lm_head", d.vocab, d.hidden, r.flag({"tie_word_embeddings"}, false));
  for (uint64_t i = 0; i < d.layers; ++i) add_nemotron_h_layer(m, i, d);
  describe_nemotron_h(m, d, r, cfg);
  // Not structural: kernel chunking, residual/initialisation switches, dt clamping, an alias of
  // the norm epsilon, the unused expand (d_inner comes from the Mamba heads) and rotary fields
  // that the attention never applies.
  m.structure_irrelevant_fields = {"chunk_size", "expand", "layer_norm_epsilon", "norm_eps", "mamba_hidden_act",
                                   "num_logits_to_keep", "rescale_prenorm_residual",
                                   "residual_in_fp32", "time_step_floor", "time_step_max", "time_step_min",
                                   "time_step_limit", "time_step_rank", "use_mamba_kernels", "partial_rotary_factor"};
  return m;
}

}  // namespace hfi::arch
