// Number formatting shared by the text and Markdown renderers.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/shape.hpp"
#include "core/text.hpp"  // printable(): every text renderer's output passes through it

namespace hfi {

std::string with_commas(uint64_t v);      // 8030261248 -> "8,030,261,248"
std::string short_count(uint64_t v);      // 8030261248 -> "8.03 billion"
std::string short_flops(uint64_t v);      // 15009849344 -> "15.01 GFLOP", 0 -> "0 FLOP"
std::string short_bytes(uint64_t v);      // binary units: "14.96 GiB"
std::string first_and_others(const std::vector<std::string>& names);  // "a.bin", "a.bin and others"

// ANSI styling for the text renderers; a no-op without colour.
// Columns text is laid out for: the terminal's, COLUMNS, or this when neither says.
inline constexpr size_t kDefaultWidth = 80;

struct Style {
  bool color;
  size_t width = kDefaultWidth;  // columns the text wraps at
  std::string bold(const std::string& s) const { return color ? "\033[1m" + s + "\033[0m" : s; }
  std::string dim(const std::string& s) const { return color ? "\033[2m" + s + "\033[0m" : s; }
  std::string warn(const std::string& s) const { return color ? "\033[33m" + s + "\033[0m" : s; }
  std::string good(const std::string& s) const { return color ? "\033[32m" + s + "\033[0m" : s; }
};

}  // namespace hfi
