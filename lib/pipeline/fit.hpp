// `hfinspect fit`: a Report's model on a deployment of GPUs. The deployment is the one asked for
// (a preset or a size, TP and PP), or, without one, the smallest among the presets (1, 2, 4 or 8
// GPUs of one kind) that holds the context and batch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/fit.hpp"
#include "analysis/gpu_presets.hpp"
#include "report/report.hpp"

namespace hfi {

struct FitRequest {
  std::string gpu;                  // --gpu: a preset's name; empty: --gpu-mem, or a search
  std::optional<uint64_t> gpu_bytes;  // --gpu-mem
  uint32_t gpus = 0;                // --gpus; 0: TP × PP
  uint32_t tp = 0, pp = 1;          // --tp (0: --gpus / PP, else 1), --pp
  bool ep = false;                  // --ep
  Fraction utilization;             // --utilization
  std::optional<uint64_t> reserve_bytes;  // --reserve; unset: default_reserve_bytes()
  std::optional<WeightFormat> weight_format;  // --weight-dtype
};

// What an engine keeps beside the weights and the KV cache on each GPU, when --reserve does not
// say: docs/fit.md derives it (activations of one prefill chunk at vLLM's defaults, the
// sampler's logits, and the runtime's own memory).
uint64_t default_reserve_bytes(const Report& report, uint32_t tp);

// The report's context, batch and KV dtype are the workload. Usage errors name the flag.
Result<FitAnswer> fit_report(const Report& report, const FitRequest& request);

}  // namespace hfi
