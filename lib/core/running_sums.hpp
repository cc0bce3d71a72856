// Sums by a short text key that lives as long as the sums (a dtype, scheme or kind name: static
// strings). Keys come in long runs over a checkpoint's tensors (46k FP8 modules in a row), so the
// last key is tried first; a std::map lookup per tensor showed in profiles.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hfi {

class RunningSums {
 public:
  uint64_t& operator[](std::string_view key) {
    if (last_ < sums_.size() && sums_[last_].first == key) return sums_[last_].second;
    for (last_ = 0; last_ < sums_.size(); ++last_)
      if (sums_[last_].first == key) return sums_[last_].second;
    sums_.emplace_back(key, 0);  // last_ is its index now
    return sums_.back().second;
  }
  // Key and sum, in key order.
  std::vector<std::pair<std::string, uint64_t>> sorted() const {
    std::map<std::string_view, uint64_t> by_key(sums_.begin(), sums_.end());
    return {by_key.begin(), by_key.end()};
  }

 private:
  std::vector<std::pair<std::string_view, uint64_t>> sums_;  // first-seen order
  size_t last_ = 0;
};

}  // namespace hfi
