#include "report/format.hpp"

#include <cstdio>

namespace hfi {

std::string with_commas(uint64_t v) {
  std::string digits = std::to_string(v), out;
  int n = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (n && n % 3 == 0) out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++n;
  }
  return out;
}

static std::string scaled(double v, const char* const* units, int count, double step) {
  int i = 0;
  while (v >= step && i + 1 < count) {
    v /= step;
    ++i;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, i == 0 ? "%.0f%s%s" : "%.2f%s%s", v, units[i][0] ? " " : "", units[i]);
  return buf;
}

// Counts in words: "7.24 B" would read as bytes beside "4.45 GiB".
std::string short_count(uint64_t v) {
  static const char* const units[] = {"", "thousand", "million", "billion", "trillion"};
  return scaled(static_cast<double>(v), units, 5, 1000.0);
}

std::string short_flops(uint64_t v) {
  static const char* const units[] = {"FLOP", "KFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP"};
  return scaled(static_cast<double>(v), units, 6, 1000.0);
}

std::string short_bytes(uint64_t v) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  return scaled(static_cast<double>(v), units, 6, 1024.0);
}

std::string first_and_others(const std::vector<std::string>& names) {
  if (names.empty()) return {};
  return names.front() + (names.size() > 1 ? " and others" : "");
}

}  // namespace hfi
