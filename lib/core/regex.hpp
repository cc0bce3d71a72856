// A compiled ECMAScript pattern behind a narrow interface, so that only regex.cpp includes <regex>
// (one of the standard library's heaviest headers, and the quantization declarations are included
// nearly everywhere).
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace hfi {

class Regex {
 public:
  // Null when `pattern` does not compile.
  static std::shared_ptr<const Regex> compile(const std::string& pattern);
  ~Regex();

  bool found_in(std::string_view text) const;     // anywhere in `text`
  bool matches_start(std::string_view text) const;  // starting at its first character

 private:
  struct Compiled;
  explicit Regex(std::unique_ptr<Compiled> compiled);
  std::unique_ptr<Compiled> compiled_;
};

}  // namespace hfi
