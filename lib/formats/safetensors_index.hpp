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

// The weight_map's entries in file order: every tensor name back to back in one block, each
// entry a span of it and its shard. A string apiece cost the largest repositories half a million
// allocations and twice the memory.
class WeightMap {
 public:
  struct Entry {
    std::string_view tensor;
    uint32_t shard;  // position in SafetensorsIndex::shards
  };
  class Iterator {
   public:
    Iterator(const WeightMap& map, size_t at) : map_(&map), at_(at) {}
    Entry operator*() const { return (*map_)[at_]; }
    Iterator& operator++() {
      ++at_;
      return *this;
    }
    bool operator==(const Iterator& other) const { return at_ == other.at_; }

   private:
    const WeightMap* map_;
    size_t at_;
  };

  void reserve(size_t entries, size_t name_bytes) {
    slots_.reserve(entries);
    names_.reserve(name_bytes);
  }
  void add(std::string_view tensor, uint32_t shard) {
    slots_.push_back({names_.size(), static_cast<uint32_t>(tensor.size()), shard});
    names_ += tensor;
  }
  size_t size() const { return slots_.size(); }
  bool empty() const { return slots_.empty(); }
  // A view into the block: valid until the next add().
  Entry operator[](size_t i) const {
    const Slot& s = slots_[i];
    return {std::string_view(names_).substr(static_cast<size_t>(s.at), s.size), s.shard};
  }
  Entry back() const { return (*this)[slots_.size() - 1]; }
  Iterator begin() const { return {*this, 0}; }
  Iterator end() const { return {*this, slots_.size()}; }

 private:
  struct Slot {
    uint64_t at;
    uint32_t size;
    uint32_t shard;
  };
  std::string names_;
  std::vector<Slot> slots_;
};

struct SafetensorsIndex {
  std::optional<uint64_t> total_size;        // metadata.total_size: bytes of tensor data
  std::optional<uint64_t> total_parameters;  // metadata.total_parameters, written by newer transformers
  WeightMap weight_map;                      // tensor -> position in `shards`, file order
  std::vector<std::string> shards;                           // distinct shard names, first-seen order
  std::vector<std::string> claimed_twice;                       // tensors listed more than once
  // Tensor name -> position in weight_map (keys: weight_map[id].tensor). Built while parsing only
  // when the names are not in sorted order (it then finds a tensor listed twice); otherwise empty,
  // and whoever needs it builds it.
  FlatIndex by_name;
  std::string_view name_of(uint32_t id) const { return weight_map[id].tensor; }
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
