// Will it fit: the weights and KV cache of one model on a deployment of GPUs, split the way the
// serving engines split them (docs/fit.md gives each rule and the vLLM / SGLang code it follows):
// tensor parallelism over heads, vocabulary and experts, pipeline stages over layers, the MLA
// latent replicated, windows capping what a sliding-window layer keeps, recurrent state per
// sequence. Pure arithmetic over the reconciled checkpoint; every figure is an exact integer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/reconcile.hpp"
#include "analysis/storage.hpp"
#include "analysis/metrics.hpp"
#include "analysis/weight_formats.hpp"
#include "arch/spec.hpp"
#include "core/error.hpp"

namespace hfi {

// A fraction given as decimal text ("0.9" is 9/10): exact, unlike a double.
struct Fraction {
  uint64_t numerator = 9, denominator = 10;
};
std::optional<Fraction> parse_fraction(const std::string& text);  // 0 < f <= 1

struct Deployment {
  uint64_t gpu_bytes = 0;  // memory of one GPU
  uint32_t tp = 1, pp = 1;
  bool ep = false;  // routed experts spread whole over the TP ranks instead of split
  Fraction utilization;     // the share of gpu_bytes an engine takes (vLLM's gpu_memory_utilization)
  uint64_t reserve_bytes = 0;  // of that share: activations, CUDA graphs, the runtime
};

struct Workload {
  uint64_t context = 0;       // tokens per sequence
  uint64_t batch = 1;         // sequences at once
  uint64_t max_context = 0;   // the model's maximum (max_context is capped at it); 0: unknown
  uint32_t kv_bytes_per_element = 2;
  StateDtypes state;  // the recurrent state's element sizes
  std::optional<WeightFormat> weight_format;  // serve the linear weights in this format instead
};

// What the checkpoint holds, as the planner needs it.
struct FitModel {
  const ArchModel& spec;
  const StorageView& storage;  // empty without shard headers
  const Reconciliation& reconcile;
  uint32_t weight_bytes_per_param = 2;  // without headers or an index: torch_dtype's size
  // Without headers, the index's total_size: each tensor then gets its parameters' share of it
  // (a quantized checkpoint stores fewer bytes than torch_dtype says).
  std::optional<uint64_t> index_total_size;
};

// One GPU's share, for the pipeline stage that binds.
struct PerGpu {
  uint64_t weight_bytes = 0;
  uint64_t kv_bytes_per_token = 0;     // every cached layer of the stage, before window caps
  uint64_t state_bytes_per_sequence = 0;  // recurrent layers' state
};

struct FitPlan {
  Deployment deployment;
  Workload workload;
  uint32_t gpus = 1;          // tp × pp
  uint64_t usable_bytes = 0;  // gpu_bytes × utilization − reserve
  PerGpu per_gpu;             // the most-loaded GPU
  uint64_t kv_capacity_tokens = 0;  // (usable − weights) / kv_bytes_per_token, on the stage that binds
  bool fits = false;               // context × batch fits
  uint64_t missing_bytes = 0;      // when it does not: what one GPU lacks
  uint64_t max_batch = 0;          // sequences of `context` tokens that fit
  uint64_t max_context = 0;        // tokens per sequence at `batch`, capped at the model's maximum
  // One GPU's total (weights, KV and state for `batch` sequences) at a few contexts, with the KV
  // cache at 2 bytes (bf16) and at 1 byte (fp8) per element.
  struct Row {
    uint64_t context = 0;
    uint64_t bf16_bytes = 0, fp8_bytes = 0;
  };
  std::vector<Row> by_context;
  std::vector<std::string> notes;  // assumptions the figures rest on
};

// A plan with the GPU it was made for.
struct FitAnswer {
  FitPlan plan;
  std::string gpu_label;   // "H100 80GB", or the size --gpu-mem gave
  std::string gpu_source;  // where the preset's figure comes from, or "--gpu-mem"
  bool searched = false;   // chosen among the presets, not asked for
  bool reserve_derived = false;
};

// Fails (Usage, naming --tp / --pp / --ep) when the model cannot be split so.
Result<FitPlan> plan_fit(const FitModel& model, const Deployment& deployment, const Workload& workload);

}  // namespace hfi
