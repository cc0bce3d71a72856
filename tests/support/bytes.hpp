// Helpers to build safetensors bytes by hand in tests.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace hfi::testing {

// 8-byte little-endian `declared` length followed by `body`.
inline std::string with_length(uint64_t declared, const std::string& body) {
  std::string out;
  for (int i = 0; i < 8; ++i) out += static_cast<char>((declared >> (8 * i)) & 0xff);
  return out + body;
}

inline std::string safetensors_prefix(const std::string& header) { return with_length(header.size(), header); }

inline std::span<const unsigned char> bytes_of(const std::string& s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

}  // namespace hfi::testing
