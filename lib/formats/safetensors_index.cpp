#include "formats/safetensors_index.hpp"
#include "core/text.hpp"

#include "core/flat_index.hpp"
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

namespace {

// metadata.total_size: some writers store it as a string or a float; any non-negative whole value.
std::optional<uint64_t> size_value(simdjson::dom::element e) {
  return e.is_string() ? parse_decimal(std::string_view(e)) : whole_number(e);
}

}  // namespace

// Reads the simdjson DOM directly: indexes of large MoE models list 100k+ tensors, and an owned
// Json copy of them cost more than everything else in the parse.
Result<SafetensorsIndex> parse_safetensors_index(std::string_view text, std::string_view file) {
  std::string f(file);
  JsonDom dom;
  auto root = dom.parse(text, file);
  if (!root) return root.error();
  if (!root->is_object()) return malformed(f, "", "is not a JSON object");
  simdjson::dom::object top(*root);
  SafetensorsIndex index;
  if (simdjson::dom::element meta; !top["metadata"].get(meta) && !meta.is_null()) {
    if (!meta.is_object()) return malformed(f, "metadata", "is not a JSON object");
    simdjson::dom::object fields(meta);
    if (simdjson::dom::element ts; !fields["total_size"].get(ts)) {
      auto v = size_value(ts);
      if (!v) return malformed(f, "metadata.total_size", "is not a non-negative integer");
      index.total_size = v;
    }
    if (simdjson::dom::element tp; !fields["total_parameters"].get(tp)) {
      auto v = size_value(tp);
      if (!v || tp.is_string()) return malformed(f, "metadata.total_parameters", "is not a non-negative integer");
      index.total_parameters = v;
    }
  }
  simdjson::dom::element map;
  if (top["weight_map"].get(map) || !map.is_object()) return malformed(f, "weight_map", "missing or not a JSON object");
  simdjson::dom::object entries(map);
  // Names are views into the DOM, which outlives the lookups. Shards: a few hundred distinct
  // names among 100k entries, and runs of the same one, so the last one is checked first.
  std::vector<std::string_view> names;
  names.reserve(entries.size());
  FlatIndex seen;
  seen.reserve(entries.size());
  auto name_of = [&](uint32_t id) { return names[id]; };
  std::vector<std::string_view> shard_names;
  auto shard_name_of = [&](uint32_t id) { return shard_names[id]; };
  FlatIndex shard_ids;
  uint32_t last_shard = FlatIndex::kEmpty;
  index.weight_map.reserve(entries.size());
  for (auto [tensor, shard] : entries) {
    std::string_view name;
    if (shard.get_string().get(name)) return malformed(f, "weight_map." + std::string(tensor), "shard name is not a string");
    uint32_t sid = last_shard != FlatIndex::kEmpty && shard_names[last_shard] == name ? last_shard : shard_ids.find(name, shard_name_of);
    if (sid == FlatIndex::kEmpty) {
      if (auto reason = unsafe_shard_name_reason(name); !reason.empty())
        return malformed(f, "weight_map." + std::string(tensor), "shard name \"" + std::string(name) + "\" " + reason);
    }
    names.push_back(tensor);
    if (seen.insert(tensor, static_cast<uint32_t>(names.size() - 1), name_of, false) != FlatIndex::kEmpty) {
      names.pop_back();
      index.claimed_twice.emplace_back(tensor);
      continue;
    }
    if (sid == FlatIndex::kEmpty) {
      sid = static_cast<uint32_t>(shard_names.size());
      shard_names.push_back(name);
      shard_ids.insert(name, sid, shard_name_of, false);
      index.shards.emplace_back(name);
    }
    last_shard = sid;
    index.weight_map.emplace_back(std::string(tensor), sid);
  }
  return index;
}

}  // namespace hfi
