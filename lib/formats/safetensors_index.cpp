#include "formats/safetensors_index.hpp"

#include <unordered_set>

#include "core/json.hpp"

namespace hfi {

std::string unsafe_shard_name_reason(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.front() == '/') return "is an absolute path";
  if (name.find("://") != std::string_view::npos) return "is a URL";
  if (name.find('\\') != std::string_view::npos) return "contains a backslash";
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return "contains a control character";
  size_t start = 0;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    std::string_view part = name.substr(start, slash == std::string_view::npos ? name.npos : slash - start);
    if (part == "..") return "contains a '..' path component";
    if (part.empty() || part == ".") return "contains an empty or '.' path component";
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return {};
}

Result<SafetensorsIndex> parse_safetensors_index(std::string_view text, std::string_view file) {
  std::string f(file);
  auto json = parse_json(text, file);
  if (!json) return json.error();
  if (!json->is_object()) return malformed(f, "", "is not a JSON object");
  SafetensorsIndex index;
  if (const Json* meta = json->find("metadata"); meta && !meta->is_null()) {
    if (!meta->is_object()) return malformed(f, "metadata", "is not a JSON object");
    if (const Json* ts = meta->find("total_size")) {
      // Some writers store it as a string or a float; accept any non-negative integer value.
      auto v = ts->is_string() ? std::optional<uint64_t>{} : ts->as_uint();
      if (ts->is_string()) {
        try {
          size_t used = 0;
          uint64_t parsed = std::stoull(ts->as_string(), &used);
          if (used == ts->as_string().size()) v = parsed;
        } catch (...) {
        }
      }
      if (!v) return malformed(f, "metadata.total_size", "is not a non-negative integer");
      index.total_size = v;
    }
    if (const Json* tp = meta->find("total_parameters")) {
      if (!tp->as_uint()) return malformed(f, "metadata.total_parameters", "is not a non-negative integer");
      index.total_parameters = tp->as_uint();
    }
  }
  const Json* map = json->find("weight_map");
  if (!map || !map->is_object()) return malformed(f, "weight_map", "missing or not a JSON object");
  // Views into `json`, which outlives both sets: indexes of big MoE models list 100k+ tensors.
  std::unordered_set<std::string_view> shard_set;
  std::unordered_set<std::string_view> seen;
  seen.reserve(map->members().size());
  index.weight_map.reserve(map->members().size());
  for (const auto& [tensor, shard] : map->members()) {
    if (!shard.is_string()) return malformed(f, "weight_map." + tensor, "shard name is not a string");
    const std::string& name = shard.as_string();
    bool new_shard = !shard_set.count(name);
    if (new_shard) {  // a few hundred distinct names among 100k entries: check each once
      if (auto reason = unsafe_shard_name_reason(name); !reason.empty())
        return malformed(f, "weight_map." + tensor, "shard name \"" + name + "\" " + reason);
    }
    if (!seen.insert(tensor).second) {
      index.claimed_twice.push_back(tensor);
      continue;
    }
    index.weight_map.emplace_back(tensor, name);
    if (new_shard) {
      shard_set.insert(name);
      index.shards.push_back(name);
    }
  }
  return index;
}

}  // namespace hfi
