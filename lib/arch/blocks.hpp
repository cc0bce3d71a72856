// Building blocks shared by the architecture specs: a config reader that fails with a clear
// message, and the tensor groups most families repeat (attention, SwiGLU MLP, experts, norms).
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

#include "arch/spec.hpp"

namespace hfi::arch {

// A config number as a summary shows it: "%g" (1e+06, 0.25, 128).
std::string format_number(double v);

// Thrown inside a spec when config.json lacks what the spec needs; build_spec() turns it into an
// Error before it leaves the arch module.
struct SpecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The product of sizes read from config.json (each at most 2^32 - 1, so two always fit), or a
// SpecError naming `what` when three or more pass 64 bits.
uint64_t checked_product(std::string_view what, std::initializer_list<uint64_t> factors);
uint64_t checked_sum(std::string_view what, std::initializer_list<uint64_t> terms);

class ConfigReader {
 public:
  explicit ConfigReader(const ModelConfig& cfg) : cfg_(cfg) {}
  const ModelConfig& config() const { return cfg_; }
  // A reader over a nested object of the root config (vision_config, audio_config, ...): it looks
  // only inside that object. Throws SpecError when the object is absent.
  ConfigReader section(std::string_view key) const;
  bool has_section(std::string_view key) const;
  // The raw field (first alias present) at this reader's level, or nullptr.
  const Json* field(std::initializer_list<std::string_view> aliases) const;
  // A positive integer that must be present.
  // `v`, or a SpecError naming the field when it is past any real model's size.
  uint64_t within_range(std::initializer_list<std::string_view> aliases, uint64_t v) const;
  uint64_t need(std::initializer_list<std::string_view> aliases) const;
  uint64_t get(std::initializer_list<std::string_view> aliases, uint64_t fallback) const;
  bool flag(std::initializer_list<std::string_view> aliases, bool fallback) const;
  double number(std::initializer_list<std::string_view> aliases, double fallback) const;

 private:
  ConfigReader(const ModelConfig& cfg, const Json* section, std::string name)
      : cfg_(cfg), section_(section), section_name_(std::move(name)) {}
  std::string label(std::initializer_list<std::string_view> aliases) const;

  const ModelConfig& cfg_;
  const Json* section_ = nullptr;  // nested object to read instead of the model config
  std::string section_name_;
};

struct AttentionDims {
  uint64_t hidden = 0, heads = 0, kv_heads = 0, head_dim = 0;
  bool qkv_bias = false;
  bool o_bias = false;
  bool qk_norm = false;  // per-head RMSNorm on q and k (Qwen3, OLMo2 style)
};

// Multi-head latent attention (DeepSeek-V2/V3, Mistral 4): queries through an optional low-rank
// path, keys and values rebuilt per head from one compressed latent plus a shared RoPE key.
struct MlaDims {
  uint64_t hidden = 0, heads = 0, q_lora = 0, kv_lora = 0, nope = 0, rope = 0, v_dim = 0;
  bool bias = false;  // attention_bias: biases on q_a_proj (or q_proj), kv_a_proj_with_mqa and o_proj
};

void add(ArchModel& m, std::string name, Shape shape, Role role, int layer = -1);
// Sizes m.tensors once for `layers` layers of about `per_layer` tensors each (a few more for the
// embeddings and head). An MoE spec expects tens of thousands (DeepSeek-V3: 47k), and growing one
// by doubling touched 5 MB of copies that were outgrown at once.
void reserve_layers(ArchModel& m, uint64_t layers, uint64_t per_layer);
void add_embeddings(ArchModel& m, uint64_t vocab, uint64_t hidden, bool tied);
// The LM head `name`.weight [vocab, hidden] (optional when tied: a tied head reuses the embedding,
// though some writers still store a copy), then `name`.bias [vocab] when bias; records vocab_size,
// hidden_size and tied_embeddings on m.
// A buffer some writers save and others do not (a causal-mask table, rotary frequencies).
void add_optional_buffer(ArchModel& m, const std::string& name, Shape shape, int layer);
void add_lm_head(ArchModel& m, const std::string& name, uint64_t vocab, uint64_t hidden, bool tied, bool bias = false);
void add_gqa_attention(ArchModel& m, const std::string& prefix, int layer, const AttentionDims& d);
// "<stack><i>.", e.g. "model.layers.3.".
std::string layer_prefix(const char* stack, uint64_t i);
// up_proj [inter, hidden] and down_proj [hidden, inter] under `prefix`: an ungated two-matrix MLP
// (Arcee's relu², Apertus's xIELU).
void add_up_down_mlp(ArchModel& m, const std::string& prefix, int layer, uint64_t hidden, uint64_t inter, bool bias);
// gate_proj / up_proj / down_proj under `prefix` (which ends with '.').
void add_swiglu(ArchModel& m, const std::string& prefix, int layer, uint64_t hidden, uint64_t inter, Role role,
                bool bias = false);
// The pre-attention and post-attention RMSNorms plus self_attn.{q,k,v,o}_proj of one layer.
void add_attention_sublayer(ArchModel& m, const std::string& layer_prefix, int layer, const AttentionDims& d);
// Attention layout and the summary lines every Llama-like decoder shares.
void finish_llama_like(ArchModel& m, const ConfigReader& r, uint64_t layers, const AttentionDims& d);
// Marks every tensor added since `first` as used by k of E tokens' experts.
void mark_routed(ArchModel& m, size_t first, uint32_t top_k, uint32_t experts);

// `name`.weight [width] and, unless bias is false, `name`.bias [width] (a LayerNorm).
void add_layernorm(ArchModel& m, const std::string& name, uint64_t width, int layer, bool bias = true,
                   Role role = Role::Norm);
// `name`.weight [out, in] and, when bias, `name`.bias [out].
void add_linear(ArchModel& m, const std::string& name, uint64_t out, uint64_t in, Role role, int layer = -1,
                bool bias = true);

// `experts` SwiGLU experts <prefix><e>.{gate,up,down}_proj of width `inter` (prefix ends with
// "experts."), marked routed top_k of experts.
void add_swiglu_experts(ArchModel& m, const std::string& prefix, int layer, uint64_t hidden, uint64_t inter,
                        uint64_t experts, uint64_t top_k);
// Mixtral's sparse block under `prefix` ("...block_sparse_moe."): gate.weight, then experts.<e>.w1
// (gate) / w2 (down) / w3 (up) of width `inter`, marked routed top_k of experts.
void add_mixtral_moe(ArchModel& m, const std::string& prefix, int layer, uint64_t hidden, uint64_t inter,
                     uint64_t experts, uint64_t top_k);
// DeepSeek-V3-style MoE MLP under `prefix` ("...mlp."): gate.weight, gate.e_score_correction_bias
// when selection_bias, routed SwiGLU experts, and `shared` shared experts stored as one SwiGLU
// shared_experts of width inter * shared (none when shared is 0).
void add_deepseek_moe(ArchModel& m, const std::string& prefix, int layer, uint64_t hidden, uint64_t inter,
                      uint64_t experts, uint64_t top_k, uint64_t shared, bool selection_bias);
// The glue a DeepSeek-V3-style multi-token-prediction layer adds to its decoder layer under
// `layer_prefix` (embed_tokens, enorm, hnorm, eh_proj, shared_head.{norm,head}); then marks every
// tensor added since `first` (the start of that layer) as MTP.
void add_mtp_glue(ArchModel& m, const std::string& layer_prefix, int layer, uint64_t vocab, uint64_t hidden,
                  size_t first);

// hidden_size, num_attention_heads, q_lora_rank (0 = no query LoRA), kv_lora_rank, qk_nope_head_dim,
// qk_rope_head_dim, v_head_dim.
MlaDims read_mla_dims(const ConfigReader& r);
// q_a_proj/q_a_layernorm/q_b_proj (or q_proj), kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, o_proj.
void add_mla_attention(ArchModel& m, const std::string& prefix, int layer, const MlaDims& d);
// One Mla AttentionLayer per decoder layer: the cache holds the latent and the RoPE key.
void add_mla_layers(ArchModel& m, uint64_t layers, const MlaDims& d);
std::string describe_mla(const MlaDims& d);

// Per-layer attention kinds from layer_types, or from sliding_window / use_sliding_window.
std::vector<AttentionKind> attention_kinds(const ConfigReader& r, uint64_t layers);
void add_attention_layers(ArchModel& m, const ConfigReader& r, uint64_t layers, const AttentionDims& d);
// One attention layer of kind `kind` with d's heads, kv_heads and head_dim (for q/k and v) and a
// window of `window` tokens.
AttentionLayer attention_layer(const AttentionDims& d, AttentionKind kind = AttentionKind::Full, uint64_t window = 0);

std::string describe_attention(const AttentionDims& d);
std::string describe_rope(const ConfigReader& r);
// Whether a class named in config.json's architectures ends with `suffix` ("ForMaskedLM",
// "CLIPVisionModelWithProjection").
bool architecture_has(const ConfigReader& r, std::string_view suffix);
// `fallback` is the family's config-class default, for configs that leave the activation out.
std::string describe_activation(const ConfigReader& r, bool gated, std::string_view fallback = "silu");

}  // namespace hfi::arch
