#include "pipeline/fit.hpp"

#include <algorithm>

#include "core/checked.hpp"
#include "pipeline/analyse.hpp"
#include "report/format.hpp"

namespace hfi {
namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;
// vLLM's defaults for its profiling run: one chunk of prefill tokens, and the sequences the
// sampler may see at once.
constexpr uint64_t kPrefillChunkTokens = 8192;
constexpr uint64_t kSampledSequences = 256;

// The widest feed-forward activation one token makes: the gate and up projections' outputs.
uint64_t widest_mlp_rows(const ArchModel& spec) {
  uint64_t rows = 0;
  for (const ExpectedTensor& t : spec.tensors)
    if ((t.role == Role::Mlp || t.role == Role::SharedExpert) && t.shape.size() == 2) rows = std::max(rows, t.shape[0]);
  return rows;
}

Result<FitPlan> plan_on(const Report& r, const FitRequest& q, uint64_t gpu_bytes, uint32_t tp, uint32_t pp, uint64_t reserve) {
  Deployment d;
  d.gpu_bytes = gpu_bytes;
  d.tp = tp;
  d.pp = pp;
  d.ep = q.ep;
  d.utilization = q.utilization;
  d.reserve_bytes = reserve;
  Workload w;
  w.context = r.kv.context;
  w.batch = r.memory.batch;
  w.max_context = r.max_context.value_or(0);
  w.kv_bytes_per_element = r.kv.bytes_per_element;
  w.state = r.kv.state_dtypes;
  w.weight_format = q.weight_format;
  FitModel model{*r.spec, r.storage, r.reconcile, torch_dtype_bytes(r.config ? &*r.config : nullptr), r.index_total_size};
  return plan_fit(model, d, w);
}

}  // namespace

uint64_t default_reserve_bytes(const Report& r, uint32_t tp) {
  const ArchModel& spec = *r.spec;
  tp = std::max<uint32_t>(tp, 1);
  // Activations of one prefill chunk: the residual stream and attention output (4 × hidden) and
  // the gate and up outputs (2 × the MLP width), at 2 bytes; the sampler's fp32 logits.
  const uint64_t per_token = 4 * spec.hidden_size + 2 * (widest_mlp_rows(spec) / tp);
  const uint64_t activations = checked_mul(kPrefillChunkTokens * 2, per_token).value_or(UINT64_MAX);
  const uint64_t logits = checked_mul(kSampledSequences * 4, spec.vocab_size / tp).value_or(UINT64_MAX);
  // The CUDA context, NCCL buffers and captured CUDA graphs.
  const uint64_t runtime = kGiB;
  return checked_add(checked_add(activations, logits).value_or(UINT64_MAX), runtime).value_or(UINT64_MAX);
}

Result<FitAnswer> fit_report(const Report& r, const FitRequest& q) {
  if (!r.spec) return Error{ErrorKind::Usage, "fit", "", "no architecture spec for model_type '" + r.model_type + "': nothing to plan with", ""};
  FitAnswer answer;
  uint64_t gpu_bytes = 0;
  if (!q.gpu.empty()) {
    const GpuPreset* preset = find_gpu_preset(q.gpu);
    if (!preset)
      return Error{ErrorKind::Usage, "--gpu", "", "'" + q.gpu + "' is not a GPU hfinspect knows", "use one of " + gpu_preset_names() + ", or --gpu-mem"};
    gpu_bytes = preset->bytes;
    answer.gpu_label = std::string(preset->label);
    answer.gpu_source = std::string(preset->source);
  } else if (q.gpu_bytes) {
    gpu_bytes = *q.gpu_bytes;
    answer.gpu_label = short_bytes(gpu_bytes);
    answer.gpu_source = "--gpu-mem";
  }
  uint32_t pp = std::max<uint32_t>(q.pp, 1);
  uint32_t tp = q.tp;
  if (q.gpus) {
    if (tp && uint64_t{tp} * pp != q.gpus)
      return Error{ErrorKind::Usage, "--gpus", "", std::to_string(q.gpus) + " differs from --tp × --pp (" + std::to_string(uint64_t{tp} * pp) + ")", ""};
    if (q.gpus % pp != 0) return Error{ErrorKind::Usage, "--gpus", "", std::to_string(q.gpus) + " is not a multiple of --pp " + std::to_string(pp), ""};
    tp = q.gpus / pp;
  }
  auto reserve_for = [&](uint32_t t) {
    answer.reserve_derived = !q.reserve_bytes;
    return q.reserve_bytes ? *q.reserve_bytes : default_reserve_bytes(r, t);
  };
  if (gpu_bytes) {
    tp = std::max<uint32_t>(tp, 1);
    auto plan = plan_on(r, q, gpu_bytes, tp, pp, reserve_for(tp));
    if (!plan) return plan.error();
    answer.plan = std::move(*plan);
    return answer;
  }
  // No GPU named: the smallest total memory among 1, 2, 4 or 8 of one preset that fits.
  answer.searched = true;
  std::optional<FitAnswer> best;
  for (const GpuPreset& preset : gpu_presets()) {
    for (uint32_t n : {1u, 2u, 4u, 8u}) {
      if (n % pp != 0 || (tp && n != uint64_t{tp} * pp)) continue;
      auto plan = plan_on(r, q, preset.bytes, n / pp, pp, reserve_for(n / pp));
      if (!plan || !plan->fits) continue;
      const uint64_t total = preset.bytes * n;
      if (best && best->plan.deployment.gpu_bytes * best->plan.gpus <= total) break;
      best = answer;
      best->plan = std::move(*plan);
      best->gpu_label = std::string(preset.label);
      best->gpu_source = std::string(preset.source);
      break;  // more of the same GPU only costs more
    }
  }
  if (!best)
    return Error{ErrorKind::Usage, "fit", "",
                 "no preset deployment of up to 8 GPUs holds " + with_commas(r.kv.context) + " tokens × " + with_commas(r.memory.batch) +
                     " sequences",
                 "try a smaller --ctx or --batch, --weight-dtype, or name the GPUs with --gpu / --gpu-mem and --tp / --pp"};
  return *best;
}

}  // namespace hfi
