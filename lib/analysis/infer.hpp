// A structural reading from tensor names alone, for a model_type that no spec covers: where the
// embedding, head and layer stack are, how attention and the MLP are stored, how many experts a
// layer routes between. Everything here is inferred and reported as such; what it cannot place is
// listed by name pattern, so the totals (exact, from the headers) are always fully accounted for.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/reconcile.hpp"
#include "analysis/storage.hpp"

namespace hfi {

struct InferredStructure {
  std::string stack;       // the repeated block's prefix, e.g. "model.layers"
  uint64_t layers = 0;     // blocks in that stack (largest index + 1)
  std::string embedding;   // input embedding tensor, if found
  std::optional<uint64_t> vocab_size, hidden_size;  // from the embedding's shape
  std::string lm_head;     // output head tensor, if stored
  std::string attention;   // "separate q/k/v/o projections", "fused qkv projection", "low-rank (MLA) projections"
  std::string mlp;         // "gated (gate/up/down)", "gated, fused gate_up", "two-layer"
  uint64_t experts = 0;    // routed experts per layer (largest index + 1), 0 if none
  bool router = false;
  uint64_t placed_tensors = 0, placed_params = 0;
  std::vector<PatternGroup> unplaced;  // name patterns it could not place, largest first
};

InferredStructure infer_structure(const StorageView& storage);

}  // namespace hfi
