// One string for everything a parse returned (every field of the value, or the whole error), so
// that the cursor path and the full parser of the same document can be compared: by the unit
// tests on chosen documents and by the fuzz targets on generated ones.
#pragma once

#include <string>

#include "formats/safetensors_header.hpp"
#include "formats/safetensors_index.hpp"

namespace hfi::testing {

inline std::string summary(const Error& e) {
  return "error " + std::to_string(static_cast<int>(e.kind)) + "|" + e.file + "|" + e.field + "|" + e.message + "|" + e.hint;
}

inline std::string summary(const Result<SafetensorsIndex>& r) {
  if (!r) return summary(r.error());
  std::string s = "total_size " + (r->total_size ? std::to_string(*r->total_size) : "-") + " total_parameters " +
                  (r->total_parameters ? std::to_string(*r->total_parameters) : "-") + "\n";
  for (const auto& [tensor, shard] : r->weight_map) s += std::string(tensor) + " -> " + std::to_string(shard) + "\n";
  for (const auto& shard : r->shards) s += "shard " + shard + "\n";
  for (const auto& twice : r->claimed_twice) s += "twice " + twice + "\n";
  return s;
}

inline std::string summary(const Result<SafetensorsHeader>& r) {
  if (!r) return summary(r.error());
  std::string s = "length " + std::to_string(r->header_length) + " data " + std::to_string(r->data_bytes) + "\n";
  for (const auto& [k, v] : r->metadata) s += "meta " + k + "=" + v + "\n";
  for (const auto& t : r->tensors) {
    s += std::string(t.name) + " " + std::to_string(static_cast<int>(t.dtype)) + " [";
    for (uint64_t d : t.shape) s += std::to_string(d) + ",";
    s += "] " + std::to_string(t.begin) + "-" + std::to_string(t.end) + " " + std::to_string(t.elements) + "\n";
  }
  return s;
}

}  // namespace hfi::testing
