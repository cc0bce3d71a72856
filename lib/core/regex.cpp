#include "core/regex.hpp"

#include <regex>

namespace hfi {

struct Regex::Compiled {
  std::regex re;
};

Regex::Regex(std::unique_ptr<Compiled> compiled) : compiled_(std::move(compiled)) {}
Regex::~Regex() = default;

std::shared_ptr<const Regex> Regex::compile(const std::string& pattern) {
  try {
    auto compiled = std::make_unique<Compiled>(Compiled{std::regex(pattern, std::regex::ECMAScript | std::regex::optimize)});
    return std::shared_ptr<const Regex>(new Regex(std::move(compiled)));
  } catch (const std::regex_error&) {
    return nullptr;
  }
}

bool Regex::found_in(std::string_view text) const {
  return std::regex_search(text.begin(), text.end(), compiled_->re);
}

bool Regex::matches_start(std::string_view text) const {
  return std::regex_search(text.begin(), text.end(), compiled_->re, std::regex_constants::match_continuous);
}

}  // namespace hfi
