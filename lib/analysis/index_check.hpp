// Does the index agree with the shard headers it names?
#pragma once

#include <string>
#include <vector>

#include "formats/safetensors_header.hpp"
#include "formats/safetensors_index.hpp"

namespace hfi {

// The index a repository follows and the shard headers read for it.
struct IndexedShards {
  const SafetensorsIndex* index = nullptr;  // none: nothing to check
  const std::string& index_path;
  const std::vector<ShardHeader>& shards;
};

// Index entries whose tensor is not in the shard the index names (or in no header at all), and
// header tensors the index does not list; sorted. Empty without an index or without headers.
std::vector<std::string> find_index_mismatches(const IndexedShards& indexed);

}  // namespace hfi
