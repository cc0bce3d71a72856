// Overflow-checked arithmetic and little-endian reads over untrusted bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace hfi {

inline std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
  uint64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// a / b rounded up; 0 when b is 0.
inline uint64_t ceil_div(uint64_t a, uint64_t b) { return b == 0 ? 0 : a / b + (a % b != 0); }

// Reads a u64 stored little-endian at the start of `bytes`; nullopt when fewer than 8 bytes.
inline std::optional<uint64_t> read_u64_le(std::span<const unsigned char> bytes) {
  if (bytes.size() < 8) return std::nullopt;
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | bytes[static_cast<size_t>(i)];
  return v;
}

}  // namespace hfi
