#include "report/text_layout.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string_view>
#include <vector>

namespace hfi::text {

std::string pad_right(std::string s, size_t width) {
  // Width in code points, so the bar glyphs and θ do not skew the columns.
  size_t cps = 0;
  for (unsigned char c : s) cps += (c & 0xC0) != 0x80;
  if (cps < width) s.append(width - cps, ' ');
  return s;
}

std::string fit_column(const std::string& s, size_t width) {
  size_t cps = 0, cut = s.size();
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (width >= 2 && cps == width - 2) cut = i;
    ++cps;
  }
  if (cps < width || width < 2) return pad_right(s, width);
  return s.substr(0, cut) + "… ";
}

size_t visible_width(std::string_view s) {
  size_t cps = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b') {  // CSI ... m
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    cps += (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
  }
  return cps;
}

std::string head_then_body(const std::string& head, const std::string& body, size_t indent, size_t width) {
  if (visible_width(head) + 1 + visible_width(body) <= width) return head + " " + body + "\n";
  return head + "\n" + std::string(indent, ' ') + body + "\n";
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

namespace {

constexpr size_t kLabelWidth = 14;

// `text` cut into pieces at `separator`, each piece keeping its separator at its end.
std::vector<std::string> split_after(const std::string& text, std::string_view separator) {
  std::vector<std::string> pieces;
  size_t from = 0;
  for (size_t at = text.find(separator); at != std::string::npos; at = text.find(separator, from)) {
    pieces.push_back(text.substr(from, at + separator.size() - from));
    from = at + separator.size();
  }
  pieces.push_back(text.substr(from));
  return pieces;
}

// A unit stays on the line of the number it follows ("30.96 GiB", "512 B/token").
bool is_unit(std::string_view word) {
  while (!word.empty() && (word.back() == ' ' || word.back() == ',' || word.back() == ')' || word.back() == ';')) word.remove_suffix(1);
  for (std::string_view unit : {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "kB", "MB", "GB", "TB", "B/token", "B/element", "tokens", "params"})
    if (word == unit) return true;
  return false;
}

// `text` cut after each space, a unit kept with the number before it.
std::vector<std::string> words_with_units(const std::string& text) {
  std::vector<std::string> words;
  for (auto& word : split_after(text, " ")) {
    const bool after_number = !words.empty() && words.back().size() >= 2 && std::isdigit(static_cast<unsigned char>(words.back()[words.back().size() - 2]));
    if (after_number && is_unit(word)) words.back() += word;
    else words.push_back(std::move(word));
  }
  return words;
}

}  // namespace

std::string wrap(const std::string& value, size_t indent, size_t width) {
  const size_t line_width = std::max<size_t>(width, 40);
  const size_t room = line_width - std::min(indent, line_width / 2);
  if (visible_width(value) <= room) return value;
  std::string out, current;
  auto place = [&](const std::string& piece) {
    std::string trimmed = piece;
    while (!trimmed.empty() && trimmed.back() == ' ') trimmed.pop_back();
    if (!current.empty() && visible_width(current) + visible_width(trimmed) > room) {
      while (!current.empty() && current.back() == ' ') current.pop_back();
      out += current + "\n" + std::string(line_width - room, ' ');
      current.clear();
    }
    current += piece;
  };
  for (const auto& fact : split_after(value, " · ")) {
    if (visible_width(fact) <= room) {
      place(fact);
      continue;
    }
    for (const auto& word : words_with_units(fact)) place(word);
  }
  return out + current;
}

void line(std::string& out, const Style& st, const std::string& label, const std::string& value) {
  out += st.bold(pad_right(label + (label.empty() ? "" : " "), kLabelWidth)) + wrap(value, kLabelWidth, st.width) + "\n";  // a long label still gets its space
}

}  // namespace hfi::text
