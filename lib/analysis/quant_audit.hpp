// The quantization audit: what the repository declares (QuantDeclaration) against what its
// tensors show (StorageView::quant_modules), plus the summary the report prints — effective bits
// per weight overall and per role, bytes by kind, the modules kept in high precision and the
// KV-cache dtype the config implies. Checks follow ../shared/docs/quant-formats.md §13.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/reconcile.hpp"
#include "analysis/storage.hpp"
#include "arch/spec.hpp"
#include "quant/quant_config.hpp"

namespace hfi {

// Check ids (the `quant:<check>:<subject>` finding keys):
//   format-mismatch        the tensors' signature is not the declared method's (or nothing is declared)
//   incomplete-set         a quantized module lacks a companion its scheme requires
//   excluded-but-quantized a module the config keeps in high precision is stored quantized
//   unquantized-linear     a decoder linear the config does not exclude is stored in float
//   scale-shape            scale / zero shapes disagree with the weight, the group or the block size
//   bits-packing           the packing implies other bits than the config declares
//   sidecar-mismatch       a side-car file disagrees with config.json
struct QuantFinding {
  std::string check;
  std::string subject;  // module, tensor, or "file:field"
  std::string message;
};

struct RoleBits {
  std::string role;           // "attention", "experts", "mlp", "embeddings", "other"
  uint64_t params = 0;        // logical
  uint64_t bytes = 0;         // values + their bookkeeping
  double bits_per_weight() const { return params ? 8.0 * static_cast<double>(bytes) / static_cast<double>(params) : 0; }
};

struct QuantSummary {
  std::optional<QuantDeclaration> declared;       // config.json's, else the first side-car's
  std::vector<std::pair<std::string, uint64_t>> detected;  // scheme name -> modules
  uint64_t quantized_modules = 0;
  uint64_t quantized_params = 0;     // logical parameters stored quantized
  uint64_t value_bytes = 0;          // their packed values
  uint64_t bookkeeping_bytes = 0;    // every scale, zero, g_idx, ... tensor
  std::vector<std::pair<std::string, uint64_t>> bookkeeping_by_kind;  // kind -> bytes
  uint64_t high_precision_bytes = 0; // everything else stored
  double quantized_bits_per_weight = 0;  // (values + bookkeeping) / quantized params
  double overall_bits_per_weight = 0;    // all stored bytes / params.total
  std::vector<RoleBits> by_role;
  std::vector<std::pair<std::string, uint64_t>> high_precision_linears;  // name pattern -> tensors
  std::optional<std::string> kv_cache_dtype;  // implied by the declaration
  std::vector<std::string> notes;
  std::vector<QuantFinding> findings;
};

// `spec` and `rec` may be empty (no spec): role-based parts are then skipped. `total_params` is
// the report's logical total.
QuantSummary audit_quantization(const std::vector<QuantDeclaration>& declarations, const StorageView& storage,
                                const ArchModel* spec, const Reconciliation& rec, uint64_t total_params);

}  // namespace hfi
