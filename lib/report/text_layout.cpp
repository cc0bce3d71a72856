#include "report/text_layout.hpp"

#include <algorithm>
#include <cstdio>

namespace hfi::text {

std::string pad_right(std::string s, size_t width) {
  // Width in code points, so the bar glyphs and θ do not skew the columns.
  size_t cps = 0;
  for (unsigned char c : s) cps += (c & 0xC0) != 0x80;
  if (cps < width) s.append(width - cps, ' ');
  return s;
}

std::string pad_left(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string bar(uint64_t part, uint64_t whole, int width) {
  if (whole == 0) return std::string(static_cast<size_t>(width), ' ');
  double frac = static_cast<double>(part) / static_cast<double>(whole);
  int eighths = static_cast<int>(frac * width * 8 + 0.5);
  static const char* const partial[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  std::string out;
  for (int i = 0; i < eighths / 8; ++i) out += "█";
  out += partial[eighths % 8];
  int used = eighths / 8 + (eighths % 8 ? 1 : 0);
  out.append(static_cast<size_t>(std::max(0, width - used)), ' ');
  return out;
}

std::string percent(uint64_t part, uint64_t whole) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%5.1f%%", whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0);
  return buf;
}

std::string bpw_text(double bpw) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", bpw);
  return buf;
}

void line(std::string& out, const Style& st, const std::string& label, const std::string& value) {
  out += st.bold(pad_right(label + (label.empty() ? "" : " "), 14)) + value + "\n";  // a long label still gets its space
}

}  // namespace hfi::text
