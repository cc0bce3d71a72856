// DeepSeek-V2/V3 (and the families built on them): multi-head latent attention (MLA) with an
// optional low-rank query path, dense first layers, routed + shared experts, a router that V3
// biases with e_score_correction_bias for selection only, and V3's multi-token-prediction layers.
#include "arch/families/families.hpp"

namespace hfi::arch {
namespace {

Result<ArchModel> deepseek(const ModelConfig& cfg, const char* family, bool v3) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = family;
  MlaDims d = read_mla_dims(r);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t experts = r.get({"n_routed_experts"}, 0);
  uint64_t top_k = experts ? r.need({"num_experts_per_tok"}) : 0;
  uint64_t moe_inter = experts ? r.need({"moe_intermediate_size"}) : 0;
  uint64_t shared = r.get({"n_shared_experts"}, 0);
  uint64_t first_dense = r.get({"first_k_dense_replace"}, 0);
  uint64_t freq = r.get({"moe_layer_freq"}, 1);
  std::string topk_method = cfg.string({"topk_method"}).value_or(v3 ? "noaux_tc" : "greedy");
  bool correction_bias = topk_method == "noaux_tc";
  uint64_t mtp_layers = v3 ? r.get({"num_nextn_predict_layers"}, 0) : 0;
  uint64_t vocab = r.need({"vocab_size"});
  reserve_layers(m, layers + mtp_layers, 3 * (experts + shared) + 16);  // attention, norms, router besides the experts
  add_embeddings(m, vocab, d.hidden, r.flag({"tie_word_embeddings"}, false));

  uint64_t moe_layers = 0;
  auto add_layer = [&](uint64_t i, bool mtp) {
    size_t start = m.tensors.size();
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add(m, p + "input_layernorm.weight", {d.hidden}, Role::Norm, l);
    add(m, p + "post_attention_layernorm.weight", {d.hidden}, Role::Norm, l);
    add_mla_attention(m, p + "self_attn.", l, d);
    bool moe = experts > 0 && i >= first_dense && freq > 0 && i % freq == 0;
    if (!moe) {
      add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp);
    } else {
      if (!mtp) ++moe_layers;
      add_deepseek_moe(m, p + "mlp.", l, d.hidden, moe_inter, experts, top_k, shared, correction_bias);
    }
    if (mtp) add_mtp_glue(m, p, l, vocab, d.hidden, start);
  };
  for (uint64_t i = 0; i < layers; ++i) add_layer(i, false);
  for (uint64_t k = 0; k < mtp_layers; ++k) add_layer(layers + k, true);

  add_mla_layers(m, layers, d);
  m.attention_summary = describe_mla(d);
  m.position_summary = describe_rope(r);
  m.norm_summary = "RMSNorm";
  m.activation_summary = describe_activation(r, true);
  std::string scoring = cfg.string({"scoring_func"}).value_or("softmax");
  m.layer_summary = std::to_string(layers) + " layers: " + std::to_string(layers - moe_layers) + " dense + " +
                    std::to_string(moe_layers) + " MoE (" + std::to_string(experts) + " routed top-" +
                    std::to_string(top_k) + " + " + std::to_string(shared) + " shared, " + scoring + " router" +
                    (correction_bias ? " with selection bias" : "") + ")" +
                    (mtp_layers ? ", " + std::to_string(mtp_layers) + " MTP layer(s)" : "");
  return m;
}

}  // namespace

Result<ArchModel> deepseek_v2_spec(const ModelConfig& cfg) { return deepseek(cfg, "deepseek_v2", false); }
Result<ArchModel> deepseek_v3_spec(const ModelConfig& cfg) { return deepseek(cfg, "deepseek_v3", true); }


// DeepSeek-MoE (model_type "deepseek", remote code DeepseekForCausalLM: deepseek-moe-16b). The MoE
// layout V2/V3 kept (dense first_k_dense_replace layers, then on the moe_layer_freq grid a softmax
// router mlp.gate, n_routed_experts SwiGLU experts and n_shared_experts shared experts stored as one
// SwiGLU of width moe_intermediate_size × n_shared_experts: add_deepseek_moe, no selection bias)
// under Llama's attention (multi-head, q/k/v/o, biases when attention_bias) instead of MLA.
Result<ArchModel> deepseek_spec(const ModelConfig& cfg) {
  ConfigReader r(cfg);
  ArchModel m;
  m.family = "deepseek";
  AttentionDims d = read_attention_dims(r);
  d.qkv_bias = d.o_bias = r.flag({"attention_bias"}, false);
  uint64_t layers = r.need({"num_hidden_layers"});
  uint64_t inter = r.need({"intermediate_size"});
  uint64_t experts = r.get({"n_routed_experts"}, 0);
  uint64_t top_k = experts ? r.need({"num_experts_per_tok"}) : 0;
  uint64_t moe_inter = experts ? r.need({"moe_intermediate_size"}) : 0;
  uint64_t shared = r.get({"n_shared_experts"}, 0);
  uint64_t first_dense = r.get({"first_k_dense_replace"}, 0);
  uint64_t freq = r.get({"moe_layer_freq"}, 1);
  if (experts && top_k > experts)
    throw SpecError("config.json: num_experts_per_tok " + std::to_string(top_k) + " exceeds n_routed_experts " +
                    std::to_string(experts));
  reserve_layers(m, layers, 3 * (experts + shared) + 16);
  add_embeddings(m, r.need({"vocab_size"}), d.hidden, r.flag({"tie_word_embeddings"}, false));
  uint64_t moe_layers = 0;
  for (uint64_t i = 0; i < layers; ++i) {
    int l = static_cast<int>(i);
    std::string p = "model.layers." + std::to_string(i) + ".";
    add_attention_sublayer(m, p, l, d);
    bool moe = experts > 0 && i >= first_dense && freq > 0 && i % freq == 0;
    if (!moe) {
      add_swiglu(m, p + "mlp.", l, d.hidden, inter, Role::Mlp);
      continue;
    }
    ++moe_layers;
    add_deepseek_moe(m, p + "mlp.", l, d.hidden, moe_inter, experts, top_k, shared, false);
  }
  finish_llama_like(m, r, layers, d);
  std::string scoring = cfg.string({"scoring_func"}).value_or("softmax");
  m.layer_summary = std::to_string(layers) + " layers: " + std::to_string(layers - moe_layers) + " dense + " +
                    std::to_string(moe_layers) + " MoE (" + std::to_string(experts) + " routed top-" +
                    std::to_string(top_k) + " + " + std::to_string(shared) + " shared, " + scoring + " router)";
  // Training-only routing loss settings.
  m.structure_irrelevant_fields = {"aux_loss_alpha", "seq_aux", "norm_topk_prob", "pretraining_tp"};
  return m;
}

}  // namespace hfi::arch
