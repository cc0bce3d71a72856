// What a config.json predicts about a checkpoint: every tensor with its shape and role, and the
// attention layout that the KV-cache and FLOP figures need. Specs write names with the canonical
// language-model prefix "model." and "lm_head."; reconcile maps them onto the checkpoint's own
// prefix (multimodal checkpoints use e.g. "model.language_model.").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "formats/model_config.hpp"

namespace hfi {

enum class Role {
  Embedding,          // input token embedding
  PerLayerEmbedding,  // per-layer embedding tables (Gemma 3n/4)
  LmHead,
  Attention,          // q/k/v/o projections, their biases, q/k norms, sinks
  // Token mixers that are not softmax attention, each its own role:
  Ssm,                // Mamba / Mamba2 mixers: in/out projections, conv, dt, A, D, gated norm
  LinearAttention,    // gated DeltaNet, lightning attention: their projections, conv and gates
  ShortConv,          // LFM2's gated short convolution
  Mlp,                // dense feed-forward
  Router,             // expert router weights and biases
  RoutingBias,        // selection-only bias (DeepSeek e_score_correction_bias): no multiply-adds
  RoutedExpert,
  SharedExpert,
  Norm,               // layer norms outside attention
  Mtp,                // multi-token-prediction glue (eh_proj, enorm, hnorm, shared head)
  Vision,
  Audio,
  Projector,          // multimodal projector / embedder
  Buffer,             // stored non-parameter tensor (causal-mask table, rotary inv_freq): no multiply-adds
  Other,
};

const char* role_name(Role r);
// Attention, or one of the other token mixers (SSM, linear attention, short convolution).
constexpr bool is_mixer(Role r) { return r == Role::Attention || r == Role::Ssm || r == Role::LinearAttention || r == Role::ShortConv; }

struct ExpectedTensor {
  std::string name;
  Shape shape;
  Role role = Role::Other;
  int layer = -1;          // decoder layer index, -1 outside the layer stack
  bool mtp = false;        // part of the multi-token-prediction module, not the main model
  bool optional = false;   // may be absent without being missing (tied lm_head)
  // The name is the checkpoint's own full spelling and is never mapped onto the language-model
  // prefix: towers that sit beside "model.language_model." under "model." (Gemma 4's
  // model.vision_tower.*, model.audio_tower.*, model.embed_vision.*).
  bool verbatim = false;
  uint32_t active_num = 1; // fraction of this tensor used per token (routed experts: k / E)
  uint32_t active_den = 1;
  // Position in ArchModel::alternatives of the other names and shapes writers use for this
  // tensor, or kNoAlternatives (nearly every tensor): kept aside, since a spec of 500k expert
  // tensors would otherwise carry two empty vectors apiece.
  static constexpr uint32_t kNoAlternatives = UINT32_MAX;
  uint32_t alternatives = kNoAlternatives;
  // An optional part other than a tied weight: a pooler, a pretraining/task head or a saved buffer
  // that checkpoints of this family may or may not carry (BERT's cls.* heads, position_ids). Set
  // together with `optional`; reported apart from tied weights when absent.
  bool optional_part = false;
  // How many times one token passes through this weight: above 1 for a block shared across depths
  // (Zamba2's shared transformer). Active parameters count such a weight once; FLOPs count each run.
  uint16_t runs_per_token = 1;
  uint64_t params() const;
};

// Other layouts and names of one expected tensor; any of them matches.
struct TensorAlternatives {
  // Layouts some writers use (gpt-oss experts saved unquantized are stored [E, in, out] rather
  // than [E, out, in]).
  std::vector<Shape> shapes;
  // Names some writers use (TF-era BERT checkpoints store LayerNorm "gamma"/"beta" where
  // transformers now writes "weight"/"bias").
  std::vector<std::string> names;
};

enum class AttentionKind { Full, Sliding, Chunked, Mla, None };

struct AttentionLayer {
  AttentionKind kind = AttentionKind::Full;
  uint32_t heads = 0;
  uint32_t kv_heads = 0;
  uint32_t qk_dim = 0;   // per-head query/key width
  uint32_t v_dim = 0;    // per-head value width
  uint64_t window = 0;   // Sliding/Chunked: tokens kept
  uint32_t mla_latent = 0;  // Mla: compressed KV width (kv_lora_rank)
  uint32_t mla_rope = 0;    // Mla: decoupled RoPE key width, cached beside the latent
  // Gemma 3n/4: this layer reads the KV of an earlier layer instead of caching its own.
  int kv_source_layer = -1;
  // Layers without attention that carry a fixed-size state per sequence instead (Mamba SSM and
  // conv state, gated delta-net state, short convolutions). Elements per sequence, any context.
  uint64_t recurrent_state_elements = 0;
  // Of those, the SSM (temporal) state: kept in the config's mamba_ssm_dtype when it names one.
  // The rest, the convolution's last inputs, is kept in the model's dtype.
  uint64_t recurrent_ssm_elements = 0;
  std::string recurrent_kind;  // e.g. "mamba2", "gated_deltanet", "short_conv"
  // Elements cached per token for this layer.
  uint64_t kv_elements_per_token() const;
};

struct ArchModel {
  std::string family;                     // spec that produced it, e.g. "llama"
  std::vector<ExpectedTensor> tensors;
  std::vector<TensorAlternatives> alternatives;  // what ExpectedTensor::alternatives points into
  uint64_t expected_elements = 0;  // of every tensor above; arch::add() checks that it stays in 64 bits
  std::vector<AttentionLayer> attention;  // main-model decoder layers, in order
  bool tied_embeddings = false;
  // Spec names start with "model." for the language model; reconcile finds the checkpoint's own
  // prefix for it ("model.", "model.language_model.", "transformer.", "") by locating the tensor
  // whose name ends in this anchor. Families without embed_tokens name their own (gpt2: "wte.weight").
  std::string prefix_anchor = "embed_tokens.weight";
  // Bidirectional encoder (BERT family): every pass attends over the whole sequence and nothing is
  // cached between passes, so there is no KV cache to report.
  bool encoder_only = false;
  // A vision tower that is the whole model (CLIPVisionModel, SiglipVisionModel, the safety
  // checker): its image patches are the tokens of the per-token figures, and its Role::Vision
  // weights are on that path.
  bool tokens_are_image_patches = false;
  uint64_t vocab_size = 0;
  uint64_t hidden_size = 0;
  // One-line description pieces.
  std::string attention_summary;  // e.g. "GQA 32q/8kv, head_dim 128"
  std::string position_summary;   // e.g. "RoPE θ=500000, llama3 scaling ×8"
  std::string norm_summary;
  std::string activation_summary;
  std::string layer_summary;      // e.g. "32 × (attention + dense SwiGLU MLP)"
  std::vector<std::string> notes;
  // config.json fields this family defines that never change the tensor layout or per-token
  // cost (dropouts, initialiser scales, token ids); read fields need no declaration.
  std::vector<std::string> structure_irrelevant_fields;

  // "tied embeddings", "untied embeddings", or "no LM head" for a tower or an encoder stored without
  // one (a tied/untied head is moot there).
  std::string head_summary() const;
  // The other names and shapes of `t`; empty for nearly every tensor.
  const TensorAlternatives& alternatives_of(const ExpectedTensor& t) const;
  // Those of the tensor added last, created on first use.
  TensorAlternatives& last_alternatives();
};

using SpecFunction = Result<ArchModel> (*)(const ModelConfig&);

struct SpecEntry {
  const char* model_type;
  const char* spec_name;  // the builder's name, e.g. "llama_spec"
  SpecFunction build;
};

// The spec for a model_type, or nullptr.
const SpecEntry* find_spec(const std::string& model_type);
std::vector<std::string> supported_model_types();
// Every registered entry, in registration order.
std::span<const SpecEntry> registered_specs();

}  // namespace hfi
