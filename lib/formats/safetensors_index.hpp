// Pure parser for model.safetensors.index.json: which shard holds which tensor, plus metadata.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/flat_index.hpp"

namespace hfi {

struct SafetensorsIndex {
  std::optional<uint64_t> total_size;        // metadata.total_size: bytes of tensor data
  std::optional<uint64_t> total_parameters;  // metadata.total_parameters, written by newer transformers
  std::vector<std::pair<std::string, uint32_t>> weight_map;  // tensor -> position in `shards`, file order
  std::vector<std::string> shards;                           // distinct shard names, first-seen order
  std::vector<std::string> claimed_twice;                       // tensors listed more than once
  // Tensor name -> position in weight_map (keys: weight_map[id].first). Built while parsing only
  // when the names are not in sorted order (it then finds a tensor listed twice); otherwise empty,
  // and whoever needs it builds it.
  FlatIndex by_name;
  std::string_view name_of(uint32_t id) const { return weight_map[id].first; }
};

// Rejects shard names that could escape the repository: "..", absolute paths, URLs, backslashes,
// control characters. Returns the reason, or empty when the name is safe.
std::string unsafe_shard_name_reason(std::string_view name);

// Plain indexes (names without escapes or non-ASCII bytes, the usual two members) are read by a
// cursor that builds no DOM; anything else goes to the full parser, with the same result.
Result<SafetensorsIndex> parse_safetensors_index(std::string_view text, std::string_view file);
// The full parser alone: the reference the fuzz target and tests hold the cursor path to.
Result<SafetensorsIndex> parse_safetensors_index_fully(std::string_view text, std::string_view file);

}  // namespace hfi
