#include "core/quantity.hpp"

#include <array>
#include <cctype>
#include <string>
#include <utility>

#include "core/checked.hpp"

namespace hfi {
namespace {

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Digits, an optional '.' and more digits: the value scaled by 10^fraction_digits.
struct Decimal {
  uint64_t scaled = 0;
  uint64_t divisor = 1;
};

std::optional<Decimal> parse_decimal_number(std::string_view s) {
  Decimal d;
  bool dot = false, digits = false;
  for (char c : s) {
    if (c == '.' && !dot) {
      dot = true;
      continue;
    }
    if (c < '0' || c > '9') return std::nullopt;
    digits = true;
    auto scaled = checked_mul(d.scaled, 10);
    auto added = scaled ? checked_add(*scaled, static_cast<uint64_t>(c - '0')) : std::nullopt;
    if (!added) return std::nullopt;
    d.scaled = *added;
    if (dot) {
      auto divisor = checked_mul(d.divisor, 10);
      if (!divisor) return std::nullopt;
      d.divisor = *divisor;
    }
  }
  if (!digits) return std::nullopt;
  return d;
}

// (number, unit) split where the digits end.
std::pair<std::string_view, std::string_view> split_unit(std::string_view text) {
  size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  std::string_view unit = text.substr(end);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  return {text.substr(0, end), unit};
}

std::optional<uint64_t> scaled_by(const Decimal& d, uint64_t unit) {
  // value = scaled × unit / divisor, exactly: scaled × unit may pass 64 bits, so divide first
  // where the fraction allows.
  auto whole = checked_mul(d.scaled / d.divisor, unit);
  auto part = checked_mul(d.scaled % d.divisor, unit);
  if (!whole || !part) return std::nullopt;
  return checked_add(*whole, *part / d.divisor);
}

}  // namespace

std::optional<uint64_t> parse_token_count(std::string_view text) {
  auto [number, unit] = split_unit(text);
  if (number.find('.') != std::string_view::npos) return std::nullopt;
  auto d = parse_decimal_number(number);
  if (!d) return std::nullopt;
  const std::string u = lowercase(unit);
  if (u.empty()) return d->scaled;
  if (u == "k") return checked_mul(d->scaled, 1024);
  if (u == "m") return checked_mul(d->scaled, 1024 * 1024);
  return std::nullopt;
}

std::optional<uint64_t> parse_byte_size(std::string_view text) {
  auto [number, unit] = split_unit(text);
  auto d = parse_decimal_number(number);
  if (!d) return std::nullopt;
  static constexpr std::array<std::pair<std::string_view, uint64_t>, 10> kUnits{{
      {"b", 1},
      {"kb", 1000},
      {"mb", 1000 * 1000},
      {"gb", 1000 * 1000 * 1000},
      {"tb", uint64_t{1000} * 1000 * 1000 * 1000},
      {"kib", uint64_t{1} << 10},
      {"mib", uint64_t{1} << 20},
      {"gib", uint64_t{1} << 30},
      {"tib", uint64_t{1} << 40},
      {"", 1},
  }};
  const std::string u = lowercase(unit);
  for (const auto& [name, factor] : kUnits)
    if (u == name) return scaled_by(*d, factor);
  return std::nullopt;
}

}  // namespace hfi
