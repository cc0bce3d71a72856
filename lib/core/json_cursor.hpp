// JsonCursor: a forward-only reader for the plain shape that a large index's weight_map has:
// ASCII strings without escapes, unsigned integers, objects and arrays. It builds nothing.
// simdjson's DOM, which the full parser uses, needs buffers twice the text's size and more: on the
// 46 MB index of bench/scale_inspect.sh's repository it adds about 95 MB at the run's peak, where
// the whole cold run peaks at 180 MB. (Shard headers, 100-200 KB each, go to the DOM alone.)
//
// Contract: every method returns false as soon as the text is anything but the plain shape
// (escapes, non-ASCII bytes, floats, signs, nesting it was not asked to skip, truncation). The
// caller then gives the whole document to the full parser (JsonDom), which either accepts it, with
// the same result, or words the error. So the cursor never accepts what the full parser would
// reject, and never has to explain anything. Reads never go past the text.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace hfi {

class JsonCursor {
 public:
  explicit JsonCursor(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  // Skips whitespace, then takes `c` if it is next.
  bool consume(char c) {
    skip_space();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }

  // A string of printable ASCII without escapes; `out` views the text.
  bool plain_string(std::string_view& out) {
    if (!consume('"')) return false;
    const char* start = p_;
    // Eight bytes at a time: stop at the first '"', '\\', control byte or byte >= 0x80. The
    // first flagged byte is the lowest bit only in little-endian order; elsewhere, byte by byte.
    while (std::endian::native == std::endian::little && end_ - p_ >= 8) {
      uint64_t v;
      std::memcpy(&v, p_, 8);
      uint64_t special = (zero_byte(v ^ 0x2222222222222222ull) | zero_byte(v ^ 0x5c5c5c5c5c5c5c5cull) |
                          ((v - 0x2020202020202020ull) & ~v) | v) &
                         0x8080808080808080ull;
      if (special) {
        p_ += __builtin_ctzll(special) / 8;  // the lowest flagged byte is always a true one
        break;
      }
      p_ += 8;
    }
    while (p_ != end_ && *p_ != '"') {
      auto c = static_cast<unsigned char>(*p_);
      if (c < 0x20 || c >= 0x80 || c == '\\') return false;
      ++p_;
    }
    if (p_ == end_) return false;
    out = std::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return true;
  }

  // An unsigned integer in plain notation (no sign, fraction, exponent or leading zero) that fits
  // in 64 bits.
  bool unsigned_integer(uint64_t& out) {
    skip_space();
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    if (*p_ == '0') {
      ++p_;
      out = 0;
      return !digit_or_number_char();
    }
    // Nineteen digits always fit in 64 bits, so only a twentieth needs the overflow test (a
    // division per digit was a sixth of reading a shard header). A twenty-first never fits, and
    // digit_or_number_char() turns it away.
    uint64_t v = 0;
    const char* last_safe = p_ + std::min<std::ptrdiff_t>(end_ - p_, 19);
    while (p_ != last_safe && is_digit(*p_)) v = v * 10 + static_cast<uint64_t>(*p_++ - '0');
    if (p_ != end_ && is_digit(*p_)) {
      auto d = static_cast<uint64_t>(*p_ - '0');
      if (v > (UINT64_MAX - d) / 10) return false;
      v = v * 10 + d;
      ++p_;
    }
    out = v;
    return !digit_or_number_char();
  }

  // Skips one value of any kind, keeping only strings and brackets straight; `out` is its text,
  // for the full parser to check. Nesting deeper than `max_depth` fails.
  bool skip_value(std::string_view& out, int max_depth) {
    skip_space();
    const char* start = p_;
    if (p_ == end_) return false;
    if (*p_ != '{' && *p_ != '[' && *p_ != '"') {  // a number or a literal: up to the next delimiter
      while (p_ != end_ && !is_space(*p_) && *p_ != ',' && *p_ != ':' && *p_ != '}' && *p_ != ']') ++p_;
    } else {
      int depth = 0;
      do {
        if (p_ == end_) return false;
        char c = *p_;
        if (c == '"') {
          for (++p_; p_ != end_ && *p_ != '"'; ++p_)
            if (*p_ == '\\' && ++p_ == end_) return false;
          if (p_ == end_) return false;
        } else if (c == '{' || c == '[') {
          if (++depth > max_depth) return false;
        } else if (c == '}' || c == ']') {
          --depth;
        }
        ++p_;
      } while (depth > 0);
    }
    out = std::string_view(start, static_cast<size_t>(p_ - start));
    return !out.empty();
  }

  // Only whitespace is left.
  bool at_end() {
    skip_space();
    return p_ == end_;
  }

 private:
  static uint64_t zero_byte(uint64_t v) { return (v - 0x0101010101010101ull) & ~v; }
  static bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  void skip_space() {
    while (p_ != end_ && is_space(*p_)) ++p_;
  }
  // After an integer: a further digit (a leading zero), '.', 'e' or 'E' means it was not plain.
  bool digit_or_number_char() const {
    return p_ != end_ && ((*p_ >= '0' && *p_ <= '9') || *p_ == '.' || *p_ == 'e' || *p_ == 'E');
  }

  const char* p_;
  const char* end_;
};

}  // namespace hfi
