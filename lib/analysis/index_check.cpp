// The index against the headers: which shard the index says holds each tensor, and its
// metadata.total_size, checked against what the shard headers hold.
#include "analysis/index_check.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "core/flat_index.hpp"
#include "core/text.hpp"

namespace hfi {
namespace {


}  // namespace

namespace {

std::string grouped_digits(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// A shard name with each run of digits turned into "N": "mtp_float-2.safetensors" -> "mtp_float-N.safetensors".
std::string name_family(std::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    bool digit = name[i] >= '0' && name[i] <= '9';
    if (!digit) out += name[i];
    else if (i == 0 || !(name[i - 1] >= '0' && name[i - 1] <= '9')) out += 'N';
  }
  return out;
}

// metadata.total_size is the tensor data of the shards the weight_map names (transformers and
// huggingface_hub write it so); with every one of them read, it must equal their headers' tensor
// bytes. A difference that one family of shard names makes up exactly (shards appended to the
// weight_map without updating total_size) is named.
std::optional<std::string> total_size_mismatch(const IndexedShards& in, const std::vector<uint32_t>& index_shard) {
  if (!in.index->total_size) return std::nullopt;
  for (uint32_t s : index_shard)
    if (s == FlatIndex::kEmpty) return std::nullopt;  // a shard not read: its bytes are unknown
  uint64_t held = 0;
  std::map<std::string, std::pair<uint64_t, size_t>> families;  // name family -> bytes, shards
  for (size_t i = 0; i < index_shard.size(); ++i) {
    uint64_t bytes = 0;
    for (const auto& t : in.shards[index_shard[i]].header.tensors) bytes += t.bytes();
    held += bytes;
    auto& f = families[name_family(in.index->shards[i])];
    f.first += bytes;
    ++f.second;
  }
  uint64_t total = *in.index->total_size;
  if (held == total) return std::nullopt;
  uint64_t diff = held > total ? held - total : total - held;
  std::string line = "metadata.total_size: " + grouped_digits(total) + " B, but the " + std::to_string(index_shard.size()) +
                     " shard(s) the weight_map names hold " + grouped_digits(held) + " B of tensor data (" + grouped_digits(diff) +
                     " B " + (held > total ? "more" : "less");
  if (held > total)
    for (const auto& [family, f] : families)
      if (f.first == diff && f.second < index_shard.size()) {
        line += ": exactly the " + std::to_string(f.second) + " " + family + " shard(s), which total_size leaves out";
        break;
      }
  return line + ")";
}

// True when the index lists every header tensor, each under its own shard and nothing else, in
// the order the headers store them. Writers sort both by name, so this is the usual case; it is
// settled with one string comparison per tensor, walking both in order, where the general check
// below costs a hash lookup into a table of every name.
bool index_lists_headers_in_order(const IndexedShards& in, const std::vector<uint32_t>& index_shard) {
  const SafetensorsIndex& index = *in.index;
  std::vector<size_t> next(in.shards.size(), 0);  // per shard, its next header tensor
  for (const auto& [name, shard] : index.weight_map) {
    uint32_t s = index_shard[shard];
    if (s == FlatIndex::kEmpty) return false;
    const auto& tensors = in.shards[s].header.tensors;
    if (next[s] == tensors.size() || tensors[next[s]].name != name) return false;
    ++next[s];
  }
  for (size_t s = 0; s < in.shards.size(); ++s)
    if (next[s] != in.shards[s].header.tensors.size()) return false;
  return true;
}

}  // namespace

std::vector<std::string> find_index_mismatches(const IndexedShards& in) {
  std::vector<std::string> out;
  if (!in.index || in.shards.empty()) return out;
  const SafetensorsIndex& index = *in.index;
  // Each shard the index names, as a position in in.shards (or none).
  std::string base = parent_dir(in.index_path);
  std::unordered_map<std::string_view, uint32_t> shard_position;
  for (uint32_t s = 0; s < in.shards.size(); ++s) shard_position.emplace(in.shards[s].path, s);
  std::vector<uint32_t> index_shard(index.shards.size(), FlatIndex::kEmpty);
  for (size_t i = 0; i < index.shards.size(); ++i)
    if (auto it = shard_position.find(base + index.shards[i]); it != shard_position.end()) index_shard[i] = it->second;
  if (index_lists_headers_in_order(in, index_shard)) {
    if (auto line = total_size_mismatch(in, index_shard)) out.push_back(std::move(*line));
    return out;
  }
  // Otherwise every header tensor is looked up in a table of the index's names (the parse builds
  // one for a map out of name order; built here otherwise); whatever index entry stays unmatched
  // is missing from the headers.
  auto name_of = [&](uint32_t id) { return index.name_of(id); };
  FlatIndex rebuilt;
  const FlatIndex* by_name = &index.by_name;
  if (index.by_name.size() != index.weight_map.size()) {
    rebuilt.reserve(index.weight_map.size());
    for (uint32_t id = 0; id < index.weight_map.size(); ++id) rebuilt.insert(index.name_of(id), id, name_of, false);
    by_name = &rebuilt;
  }
  std::vector<bool> matched(index.weight_map.size(), false);
  for (uint32_t s = 0; s < in.shards.size(); ++s)
    for (const auto& t : in.shards[s].header.tensors) {
      uint32_t id = by_name->find(t.name, name_of);
      if (id == FlatIndex::kEmpty) {
        out.push_back(std::string(t.name) + ": in " + in.shards[s].path + " but not in the index");
        continue;
      }
      if (matched[id]) continue;  // a second copy in another shard: reconcile reports those
      matched[id] = true;
      uint32_t listed_shard = index.weight_map[id].shard;
      if (index_shard[listed_shard] != s)
        out.push_back(std::string(t.name) + ": index says " + index.shards[listed_shard] + ", header of " + in.shards[s].path + " holds it");
    }
  for (uint32_t id = 0; id < index.weight_map.size(); ++id)
    if (!matched[id]) out.push_back(std::string(index.weight_map[id].tensor) + ": listed in the index but in no shard header");
  if (auto line = total_size_mismatch(in, index_shard)) out.push_back(std::move(*line));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace hfi
