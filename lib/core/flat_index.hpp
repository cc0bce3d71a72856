// FlatIndex: an open-addressing map from a string to a uint32 id, where the caller keeps the keys
// and `key_of(id)` returns the key of an id. No node per entry: DeepSeek-V3's 92k tensor names
// cost one array instead of 92k allocations and frees, which std::unordered_map spent most of its
// time on. Each slot keeps 32 bits of the hash beside the id, so a probe compares strings only
// when the hashes agree (tensor names share long prefixes, which makes every memcmp long).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace hfi {

class FlatIndex {
 public:
  static constexpr uint32_t kEmpty = UINT32_MAX;

  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < n + n / 2 + 1) cap *= 2;
    slots_.assign(cap, kFree);
    count_ = 0;
  }
  size_t size() const { return count_; }

  // The id stored for `key`, or kEmpty.
  template <typename KeyOf>
  uint32_t find(std::string_view key, const KeyOf& key_of) const {
    if (slots_.empty()) return kEmpty;
    uint64_t h = std::hash<std::string_view>{}(key);
    uint32_t tag = static_cast<uint32_t>(h >> 32);
    size_t mask = slots_.size() - 1;
    for (size_t at = h & mask;; at = (at + 1) & mask) {
      uint64_t slot = slots_[at];
      if (slot == kFree) return kEmpty;
      if (tag_of(slot) == tag && key_of(id_of(slot)) == key) return id_of(slot);
    }
  }

  // Stores `id` under `key` (replacing an earlier id with the same key when `replace`); returns the
  // earlier id or kEmpty. One hash and one probe: a lookup that may add costs no second pass.
  // `key_of` is asked only for ids already stored, so `id` may name something not made yet.
  template <typename KeyOf>
  uint32_t insert(std::string_view key, uint32_t id, const KeyOf& key_of, bool replace) {
    if ((count_ + 1) * 3 > slots_.size() * 2) grow(key_of);
    uint64_t h = std::hash<std::string_view>{}(key);
    uint32_t tag = static_cast<uint32_t>(h >> 32);
    size_t mask = slots_.size() - 1;
    for (size_t at = h & mask;; at = (at + 1) & mask) {
      uint64_t slot = slots_[at];
      if (slot == kFree) {
        slots_[at] = pack(tag, id);
        ++count_;
        return kEmpty;
      }
      if (tag_of(slot) == tag && key_of(id_of(slot)) == key) {
        if (replace) slots_[at] = pack(tag, id);
        return id_of(slot);
      }
    }
  }

 private:
  static constexpr uint64_t kFree = UINT64_MAX;  // ids are below kEmpty, so no used slot equals it
  static uint64_t pack(uint32_t tag, uint32_t id) { return (static_cast<uint64_t>(tag) << 32) | id; }
  static uint32_t tag_of(uint64_t slot) { return static_cast<uint32_t>(slot >> 32); }
  static uint32_t id_of(uint64_t slot) { return static_cast<uint32_t>(slot); }

  template <typename KeyOf>
  void grow(const KeyOf& key_of) {
    std::vector<uint64_t> old = std::move(slots_);
    reserve(std::max<size_t>(16, old.size()));
    for (uint64_t slot : old)
      if (slot != kFree) insert(key_of(id_of(slot)), id_of(slot), key_of, true);
  }

  std::vector<uint64_t> slots_;
  size_t count_ = 0;
};

}  // namespace hfi
