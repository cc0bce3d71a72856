#include "core/text.hpp"

#include <cctype>

#include <algorithm>
#include <array>
#include <cstdio>

namespace hfi {
namespace {

// The colour sequences of report/format.hpp's Style.
constexpr std::array<std::string_view, 5> kOwnColours = {"\033[0m", "\033[1m", "\033[2m", "\033[32m", "\033[33m"};

void append_hex(std::string& out, unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  out += buf;
}

}  // namespace

std::string printable(std::string_view text, bool keep_colour) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0x1b && keep_colour) {
      auto own = std::find_if(kOwnColours.begin(), kOwnColours.end(), [&](std::string_view s) { return text.substr(i).starts_with(s); });
      if (own != kOwnColours.end()) {
        out += *own;
        i += own->size() - 1;
        continue;
      }
    }
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      append_hex(out, c);
    } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      append_hex(out, static_cast<unsigned char>(text[++i]));  // U+0080..U+009F: C1 controls, CSI among them
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string squashed_name(std::string_view name) {
  std::string out;
  for (char c : name)
    if (c != '-' && c != '_' && c != ' ') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool safe_repo_path(std::string_view path) {
  if (path.empty() || path.size() > 1024 || path.front() == '/') return false;
  for (char c : path)
    if (c == '\\' || c == '\0') return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view segment = path.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    start = end + 1;
  }
  return true;
}

}  // namespace hfi
