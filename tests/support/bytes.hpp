// Helpers to build safetensors bytes by hand in tests, and to damage files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
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

// Changes the byte at `at` of `file` in place (flips its 0x20 bit): damage on disk.
inline void flip_byte(const std::filesystem::path& file, uint64_t at) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(at));
  char c = 0;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(at));
  f.put(static_cast<char>(c ^ 0x20));
}

}  // namespace hfi::testing
