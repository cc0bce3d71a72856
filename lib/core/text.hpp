// Small text helpers shared by the parsers of untrusted input.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hfi {

// A repository path that is safe to join below a folder: relative, no "..", no empty or "."
// segment, no backslash or NUL, at most 1 KiB. Paths come from the network and from files such as
// model_index.json, so this is checked before use.
bool safe_repo_path(std::string_view path);

// Without leading and trailing whitespace (spaces, tabs, CR, LF).
inline std::string trim(std::string_view s) {
  auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  auto begin = std::find_if_not(s.begin(), s.end(), space);
  auto end = std::find_if_not(s.rbegin(), std::string_view::reverse_iterator(begin), space).base();
  return std::string(begin, end);
}

// One or more ASCII digits and nothing else (a layer index in a tensor name).
inline bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "a/b/c.json" -> "a/b/", "c.json" -> "": the folder part of a repository path, with its slash.
inline std::string parent_dir(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// ASCII lower case.
inline std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A plain decimal of at most 19 digits (so it always fits in 64 bits); nullopt for anything else.
inline std::optional<uint64_t> parse_decimal(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

// `text` safe to print on a terminal: every control character but newline and tab (C0, DEL, and
// the C1 range written as UTF-8) becomes a visible \xNN, so that a tensor name, a config value or
// a server message cannot move the cursor, clear the screen or retitle the window. With
// `keep_colour`, the few SGR colour sequences hfinspect itself writes are left as they are.
std::string printable(std::string_view text, bool keep_colour = false);

// How names people type are compared: lowercase, without '-', '_' and spaces ("H100 80GB" and
// "h100-80gb", "qwen3_moe" and "Qwen3Moe" meet).
std::string squashed_name(std::string_view name);

}  // namespace hfi
