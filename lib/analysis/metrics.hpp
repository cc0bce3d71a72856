// Figures derived from the reconciled checkpoint: parameter breakdown, active parameters,
// FLOPs per token, KV cache and memory. All parameter figures come from real (logical) shapes;
// the spec only supplies roles and the attention layout.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/reconcile.hpp"
#include "analysis/storage.hpp"
#include "arch/spec.hpp"

namespace hfi {

struct ParamBreakdown {
  uint64_t total = 0;            // logical parameters in the checkpoint (Hub convention)
  uint64_t stored_elements = 0;  // raw element count, scales and packed bytes included
  uint64_t embedding = 0;        // input embeddings (incl. per-layer embedding tables), main model
  uint64_t lm_head = 0;
  uint64_t non_embedding = 0;    // total - embedding - lm_head
  uint64_t mtp = 0;
  uint64_t active = 0;           // per token, main model
  uint64_t active_non_embedding = 0;
  uint64_t active_without_input_embedding = 0;
  uint64_t repeated_runs = 0;    // params x (runs - 1) of weights a token passes through more than once
  bool active_known = false;     // false without a spec: every stored parameter counted
  std::vector<std::pair<std::string, uint64_t>> by_dtype;  // logical params by storage format
  std::vector<std::pair<std::string, uint64_t>> by_role;   // including "unexplained"
  std::vector<std::string> active_notes;
};

struct FlopsPerToken {
  uint64_t fixed = 0;      // 2 x multiply-adds of the weights a token passes through
  uint64_t attention = 0;  // QK^T and AV over the context, at `context`
  uint64_t context = 0;
};

// Element sizes of a recurrent layer's state: its convolution inputs (the model's dtype) and its
// SSM state (mamba_ssm_dtype when the config names one).
struct StateDtypes {
  uint32_t conv_bytes = 2;
  uint32_t ssm_bytes = 2;
};

struct KvCache {
  uint64_t bytes_per_token = 0;   // every attention layer, before any window cap
  uint64_t bytes_at_context = 0;  // windows applied
  uint64_t context = 0;
  uint32_t bytes_per_element = 2;
  uint32_t attention_layers = 0;
  uint32_t windowed_layers = 0;
  uint32_t mla_layers = 0;
  uint32_t shared_kv_layers = 0;      // attention layers reading an earlier layer's KV (not cached twice)
  uint32_t recurrent_layers = 0;      // Mamba / delta-net / short-conv layers
  uint64_t recurrent_state_bytes = 0; // their fixed state per sequence, in `state_dtypes`
  StateDtypes state_dtypes;
  bool encoder_only = false;          // bidirectional encoder: nothing is cached, every figure is 0
  bool inferred = false;              // no spec: from the config's generic fields (see analyse.cpp)
};

// Where the weights' bytes come from.
enum class WeightSource {
  Headers,         // the tensors' bytes as the shard headers give them (quantization bookkeeping included)
  IndexTotalSize,  // no headers: the index's metadata.total_size
  Formula,         // neither: the config formula's parameters at torch_dtype, an estimate
};
const char* weight_source_name(WeightSource source);  // "headers", "index_total_size", "estimate"

struct MemoryEstimate {
  uint64_t weight_bytes = 0;
  WeightSource weight_source = WeightSource::Headers;
  uint64_t batch = 1;
  uint64_t kv_bytes = 0;          // KV at context plus recurrent state, for `batch` sequences
  uint64_t total_bytes = 0;
};

// What config.json alone predicts (no headers): total, active and the embedding/head/MTP split.
// Optional tensors (a tied head) are left out.
ParamBreakdown formula_params(const ArchModel& spec);
// The same, also counting the optional tensors at these indices (an index lists them as stored).
ParamBreakdown formula_params(const ArchModel& spec, const std::vector<size_t>& stored_optional);

ParamBreakdown compute_params(const ArchModel* spec, const StorageView& storage, const Reconciliation& rec);
// Both fail (Usage, naming --ctx) when a figure at `context` would pass 64 bits.
Result<FlopsPerToken> compute_flops(const ArchModel* spec, const ParamBreakdown& params, uint64_t context);
Result<KvCache> compute_kv_cache(const ArchModel* spec, uint64_t context, uint32_t bytes_per_element, StateDtypes state = {});

// Bytes per element of a dtype name as users write it: bf16, fp16, fp8, fp32, float8_e4m3fn, ...
std::optional<uint32_t> kv_dtype_bytes(const std::string& name);

}  // namespace hfi
