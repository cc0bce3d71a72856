// headers.pack, the cache's file of shard headers for one commit (hub_cache.hpp): the format, and
// a reader that takes one record at a time, so that a warm run holds only the headers it asks for
// (a pack of 163 long headers is over a gigabyte).
//
// Format: "hfinspect header pack 2\n", then per shard a record of
//   u32 little-endian path length, the path, u64 little-endian byte count, the bytes,
//   u64 little-endian FNV-1a of the path and the bytes.
// (Version 1 had no checksums; such a pack is not read.)
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace hfi {

inline constexpr std::string_view kHeaderPackMagic = "hfinspect header pack 2\n";

// A record's framing: what goes before its bytes, and the checksum that follows them.
std::string pack_record_head(std::string_view path, uint64_t byte_count);
std::string pack_record_tail(std::string_view path, std::string_view bytes);

class HeaderPackReader {
 public:
  enum class Lookup { Found, Absent, Damaged };

  // Walks the pack's framing (paths and lengths; the bytes are skipped). A pack that is not there
  // reads as empty; one whose framing is broken, as damaged and empty.
  explicit HeaderPackReader(const std::filesystem::path& file);
  // The same over a pack held in memory (the fuzz target's way in).
  static HeaderPackReader from_bytes(std::string bytes);

  bool damaged() const { return damaged_; }
  // The record of `path` into `bytes`, checked against its checksum (Damaged when it fails).
  Lookup read(const std::string& path, std::string& bytes);

 private:
  struct Entry {
    uint64_t offset = 0, length = 0, checksum = 0;
  };
  HeaderPackReader() = default;
  void open(std::unique_ptr<std::istream> in, uint64_t size);
  bool walk();

  std::unique_ptr<std::istream> in_;
  uint64_t file_size_ = 0;
  std::map<std::string, Entry> entries_;
  bool damaged_ = false;
};

}  // namespace hfi
