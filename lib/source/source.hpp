// Where a model's files come from. The loader sees only this interface; a local directory, a
// Hugging Face cache snapshot and the Hub over HTTP implement it. Batched range reads let a
// network source issue every request of a round at once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "formats/safetensors_header.hpp"
#include "formats/safetensors_index.hpp"

namespace hfi {

// Where a report's bytes came from.
enum class SourceKind { Local, HfCache, Hub, BundledReference };

// How reports name it: "local", "hf-cache", "hub", "bundled reference".
const char* source_kind_name(SourceKind kind);

struct FileEntry {
  std::string path;  // relative to the repository root, '/'-separated
  uint64_t size = 0;
};

struct RangeRequest {
  std::string path;
  uint64_t offset = 0;
  uint64_t length = 0;  // bytes wanted; fewer come back at end of file
  // The range opens a safetensors file (an 8-byte length N, then the header): a source may stop
  // after 8 + N bytes, and may hand over more than `length` bytes of the header when it read
  // further ahead (the Hub's reads sized from the index).
  bool length_prefixed = false;
};

// Header reads go to a source in calls of about this many bytes at most, so that a repository of
// huge headers is read, parsed and released a part at a time.
inline constexpr uint64_t kReadBatchBytes = 512u << 20;

class Source {
 public:
  virtual ~Source() = default;

  virtual SourceKind kind() const = 0;
  // Human-readable location (a directory, or a URL).
  virtual std::string location() const = 0;
  // Commit sha when the source knows it (cache snapshots, the Hub), else empty.
  virtual std::string commit() const { return {}; }

  virtual Result<std::vector<FileEntry>> list_files() = 0;

  // Reads a whole small file; nullopt when the file does not exist. Fails past `max_bytes`.
  virtual Result<std::optional<std::string>> read_file(const std::string& path, uint64_t max_bytes) = 0;

  // Reads several byte ranges; one result per request, in order.
  virtual std::vector<Result<std::string>> read_ranges(const std::vector<RangeRequest>& requests) = 0;

  // A source that parsed a file while it waited for others (the Hub's fetch plan parses the
  // index and each shard header as it arrives) hands the result over once, in place of the
  // bytes; nullopt: read the bytes and parse them as usual. The parse is the one the loader
  // would make: same parser, same file name, same size.
  virtual std::optional<Result<SafetensorsIndex>> take_parsed_index(const std::string& path) {
    (void)path;
    return std::nullopt;
  }
  virtual std::optional<Result<SafetensorsHeader>> take_parsed_header(const std::string& path, uint64_t file_size) {
    (void)path;
    (void)file_size;
    return std::nullopt;
  }

  // Says which files and shard-header reads the loader will ask for next, so that a network source
  // can send them all in one round (a pipeline's components, each a folder of its own). A source
  // that reads locally ignores it; the reads are then made as asked.
  virtual void prefetch(const std::vector<std::string>& files, const std::vector<RangeRequest>& header_reads) {
    (void)files;
    (void)header_reads;
  }

  // The bytes read from the start of a shard (its 8-byte length, its header, perhaps some tensor
  // bytes), handed back once parsed. A source that caches what it fetched keeps them, moved rather
  // than copied (a 163-shard MoE has 12 MB of headers); the others let them go.
  virtual void keep_header(const std::string& path, std::string bytes) {
    (void)path;
    (void)bytes;
  }
};

}  // namespace hfi
