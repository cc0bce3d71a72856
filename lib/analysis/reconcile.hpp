// Reconcile: meet what config.json predicts (ArchModel) with what the checkpoint holds
// (StorageView). Every logical tensor ends up matched to an expected one or in an unexplained
// pattern group, so explained + unexplained always equals the checkpoint's total.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/storage.hpp"
#include "arch/spec.hpp"
#include "formats/safetensors_index.hpp"

namespace hfi {

struct PatternGroup {
  std::string pattern;  // name with numeric components replaced: model.layers.{i}.x.weight
  uint64_t tensors = 0;
  uint64_t params = 0;
  uint64_t bytes = 0;
};

struct ShapeMismatch {
  std::string name;
  Shape expected;
  Shape actual;
};

struct MissingTensor {
  std::string name;
  Role role = Role::Other;
  uint64_t params = 0;
};

// How the checkpoint compares with what its config predicts.
enum class ReconcileStatus {
  NoSpec,     // nothing to compare with
  Complete,   // everything matched
  Extras,     // matched, plus unexplained tensors
  Mismatch,   // shapes differ or expected tensors are missing
  NamesOnly,  // no shard headers: only the index's names were compared (IndexReconciliation)
  NoWeights,  // no safetensors weights at all
};

// "no-spec", "complete", "extras", "mismatch", "names-only", "no-weights": the reports' spelling.
const char* reconcile_status_name(ReconcileStatus status);

// What the stored tensors were known by: their shard headers (names, shapes, sizes), or only the
// names the index lists (no shard headers: what they hold is unknown).
enum class ReconcileSource { None, Headers, Index };
const char* reconcile_source_name(ReconcileSource source);  // "none", "headers", "index"

struct Reconciliation {
  ReconcileStatus status = ReconcileStatus::NoSpec;
  ReconcileSource source = ReconcileSource::None;
  std::string lm_prefix = "model.";
  std::string head_prefix = "lm_head.";
  std::vector<int64_t> expected_of;  // per logical tensor: index into ArchModel::tensors, or -1
  uint64_t matched_tensors = 0;
  uint64_t matched_params = 0;
  std::vector<ShapeMismatch> shape_mismatches;
  std::vector<MissingTensor> missing;
  std::vector<std::string> absent_by_design;  // optional tensors not stored (tied lm_head)
  std::vector<std::string> absent_parts;      // optional poolers / task heads / buffers (Role::Buffer) not stored
  std::vector<PatternGroup> unexplained;      // by pattern, largest first
  std::vector<PatternGroup> unexplained_structures;  // rolled up by leading name components
  uint64_t unexplained_tensors = 0;
  uint64_t unexplained_params = 0;
};

// `expected` may be null (no spec for this model_type). With a spec, AutoGPTQ's bias buffers in
// `actual` become bookkeeping once matched (analysis/gptq_bias_buffers.hpp), before the
// unexplained tensors are counted: that is the one change made to `actual`.
Reconciliation reconcile(const ArchModel* expected, StorageView& actual);

// Name-only reconcile when only the index is available (no shard headers).
struct IndexReconciliation {
  uint64_t expected_tensors = 0;
  uint64_t listed_tensors = 0;
  uint64_t expected_bytes = 0;  // at the config's torch_dtype
  std::optional<uint64_t> total_size;
  // Spec tensors marked optional (tied heads, buffers) that the index does list: they are stored.
  std::vector<size_t> listed_optional;
};
// Compares the names `index` lists with the spec: what is missing and unexplained goes to
// `by_name` (status NamesOnly, source Index; no shapes or sizes, so no parameters of unexplained
// tensors and no shape checks), the rest of the comparison is returned.
IndexReconciliation reconcile_index(const ArchModel& expected, const SafetensorsIndex& index, uint32_t bytes_per_param,
                                    Reconciliation& by_name);

// model.layers.12.mlp.experts.3.w1.weight -> model.layers.{i}.mlp.experts.{j}.w1.weight
std::string name_pattern(std::string_view name);

}  // namespace hfi
