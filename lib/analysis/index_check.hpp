// Does the index agree with the shard headers it names?
#pragma once

#include <string>
#include <vector>

#include "source/snapshot.hpp"

namespace hfi {

// Index entries whose tensor is not in the shard the index names (or in no header at all), and
// header tensors the index does not list; sorted. Empty without an index or without headers.
std::vector<std::string> find_index_mismatches(const Snapshot& snapshot);

}  // namespace hfi
