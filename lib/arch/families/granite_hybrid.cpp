// Granite 4.0 (granitemoehybrid): Granite's names and scalar multipliers around a hybrid stack.
// layer_types gives each layer "mamba" (a Mamba2 mixer, model.layers.N.mamba.*) or "attention"
// (GQA, self_attn.*, RoPE only when position_embedding_type is "rope"). Every layer also has a
// dense shared MLP (shared_mlp.input_linear [2 × shared_intermediate_size, hidden], gate and up
// stacked, and shared_mlp.output_linear) and, when num_local_experts > 0, GraniteMoE's fused
// experts beside it (block_sparse_moe.{router.layer, input_linear, output_linear}). The dense
// releases (granite-4.0-micro and the like) set num_local_experts to 0.
#include <algorithm>

#include "arch/families/families.hpp"
#include "arch/families/ssm_mixers.hpp"

namespace hfi::arch {
namespace {

// layer_types ("mamba" / "attention"); absent, every layer is Mamba.
std::vector<bool> granite_hybrid_attention_layers(const ConfigReader& r, uint64_t layers) {
  std::vector<bool> attn(layers, false);
  const Json* types = r.field({"layer_types", "layers_block_type"});
  if (!types || types->is_null()) return attn;
  if (!types->is_array() || types->items().size() != layers)
    throw SpecError("config.json: layer_types does not list every layer");
  for (size_t i = 0; i < layers; ++i) {
    const Json& t = types->items()[i];
    std::string s = t.is_string() ? t.as_string() : "";
    if (s == "attention") attn[i] = true;
    else if (s != "mamba") throw SpecError("config.json: layer_types[" + std::to_string(i) + "] is \"" + s + "\"");
  }
  return attn;
}

}  // namespace

Result<ArchModel> granitemoehybrid_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "granitemoehybrid";
  AttentionDims a;
  a.hidden = r.get({"hidden_size"}, 4096);
  a.heads = r.get({"num_attention_heads"}, 32);
  a.kv_heads = r.get({"num_key_value_heads"}, a.heads);
  if (a.heads == 0) throw SpecError("config.json: num_attention_heads is 0");
  a.head_dim = a.hidden / a.heads;  // GraniteMoeHybrid's attention has no head_dim field
  a.qkv_bias = a.o_bias = r.flag({"attention_bias"}, false);
  uint64_t layers = r.get({"num_hidden_layers"}, 32);
  uint64_t vocab = r.get({"vocab_size"}, 32000);
  bool tied = r.flag({"tie_word_embeddings"}, false);
  uint64_t experts = r.get({"num_local_experts"}, 8);
  uint64_t top_k = experts ? r.get({"num_experts_per_tok"}, 2) : 0;
  uint64_t inter = experts ? r.get({"intermediate_size"}, 11008) : 0;  // per expert
  uint64_t shared = r.get({"shared_intermediate_size"}, 1024);

  ssm::Mamba2Dims d;
  d.hidden = a.hidden;
  d.d_inner = checked_product("mamba_expand × hidden_size", {r.get({"mamba_expand"}, 2), a.hidden});
  d.heads = r.get({"mamba_n_heads"}, 128);
  const Json* head = r.field({"mamba_d_head"});
  d.head_dim = (!head || head->is_null() || head->is_string()) ? (d.heads ? d.d_inner / d.heads : 0)
                                                                  : r.get({"mamba_d_head"}, 0);
  d.groups = r.get({"mamba_n_groups"}, 1);
  d.state = r.get({"mamba_d_state"}, 256);
  d.kernel = r.get({"mamba_d_conv"}, 4);
  d.conv_bias = r.flag({"mamba_conv_bias"}, true);
  d.proj_bias = r.flag({"mamba_proj_bias"}, false);
  auto attn = granite_hybrid_attention_layers(r, layers);
  bool any_mamba = std::find(attn.begin(), attn.end(), false) != attn.end();
  if (any_mamba) ssm::check_mamba2_heads(d, "granitemoehybrid");

  reserve_layers(m, layers, 16);
  add_embeddings(m, vocab, a.hidden, tied);
  uint64_t attn_count = 0;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add(m, p + "input_layernorm.weight", {a.hidden}, Role::Norm, l);
    add(m, p + "post_attention_layernorm.weight", {a.hidden}, Role::Norm, l);
    if (attn[i]) {
      add_gqa_attention(m, p + "self_attn.", l, a);
      m.attention.push_back(attention_layer(a));
      ++attn_count;
    } else {
      ssm::add_mamba2_mixer(m, p + "mamba.", l, d);
      m.attention.push_back(ssm::mamba2_layer(d));
    }
    if (experts) {
      add(m, p + "block_sparse_moe.router.layer.weight", {experts, a.hidden}, Role::Router, l);
      size_t first = m.tensors.size();
      add(m, p + "block_sparse_moe.input_linear.weight", {experts, 2 * inter, a.hidden}, Role::RoutedExpert, l);
      add(m, p + "block_sparse_moe.output_linear.weight", {experts, a.hidden, inter}, Role::RoutedExpert, l);
      mark_routed(m, first, static_cast<uint32_t>(top_k), static_cast<uint32_t>(experts));
    }
    if (shared) {
      // The MoE layers' shared expert, or the dense releases' only MLP.
      Role role = experts ? Role::SharedExpert : Role::Mlp;
      add(m, p + "shared_mlp.input_linear.weight", {2 * shared, a.hidden}, role, l);
      add(m, p + "shared_mlp.output_linear.weight", {a.hidden, shared}, role, l);
    }
  }

  m.attention_summary = std::to_string(attn_count) + " attention layers (" + describe_attention(a) + ") + " +
                        std::to_string(layers - attn_count) + " Mamba2 layers (" + ssm::describe_mamba2(d) + ")";
  std::string pos = cfg.string({"position_embedding_type"}).value_or("");
  m.position_summary = pos == "rope" ? describe_rope(r) : "no positional encoding in attention (NoPE)";
  m.norm_summary = "RMSNorm; gated RMSNorm in Mamba2";
  m.activation_summary = describe_activation(r, true);
  m.layer_summary = std::to_string(layers) + " layers: " +
                    (experts ? std::to_string(experts) + " fused experts top-" + std::to_string(top_k) + " + shared MLP " +
                                   std::to_string(shared)
                             : "dense SwiGLU MLP " + std::to_string(shared)) +
                    " per layer";
  m.structure_irrelevant_fields = {"mamba_chunk_size", "embedding_multiplier", "logits_scaling", "residual_multiplier",
                                   "attention_multiplier", "rms_norm_eps", "normalization_function", "init_method",
                                   "time_step_min", "time_step_max", "time_step_limit"};
  if (!experts) {  // the expert width and top-k mean nothing without experts
    m.structure_irrelevant_fields.push_back("intermediate_size");
    m.structure_irrelevant_fields.push_back("num_experts_per_tok");
  }
  return m;
}

}  // namespace hfi::arch
