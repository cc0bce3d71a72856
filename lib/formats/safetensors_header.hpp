// Pure parser for the header of a .safetensors file: an 8-byte little-endian length N, then N
// bytes of JSON mapping tensor names to dtype, shape and data offsets, plus `__metadata__`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/shape.hpp"
#include "formats/dtype.hpp"

namespace hfi {

class JsonDom;

// Headers longer than this are refused before anything is allocated (the safetensors crate's cap).
inline constexpr uint64_t kMaxSafetensorsHeader = 100'000'000;

struct TensorInfo {
  // A view into SafetensorsHeader::names of the header that holds it: one block per shard rather
  // than a heap string per tensor (DeepSeek-V3: 92k of them, 5.9 MB).
  std::string_view name;
  Dtype dtype = Dtype::F32;
  Shape shape;
  uint64_t begin = 0;  // data offsets, relative to the end of the header, end exclusive
  uint64_t end = 0;
  uint64_t elements = 0;  // product of shape (1 for a rank-0 scalar)
  uint64_t bytes() const { return end - begin; }
};

struct SafetensorsHeader {
  uint64_t header_length = 0;                              // N
  std::vector<std::pair<std::string, std::string>> metadata;  // __metadata__, in file order
  std::vector<TensorInfo> tensors;                         // sorted by data offset
  uint64_t data_bytes = 0;                                 // end of the last tensor
  std::shared_ptr<const std::string> names;                // every tensor name, back to back
  uint64_t file_size() const { return 8 + header_length + data_bytes; }
  // Copies every tensor's name into `names` and points the tensor at its copy. The parsers call
  // it before the text they read goes; code that builds a header by hand must call it too.
  void own_names();
};

// One shard's header and the file it was read from.
struct ShardHeader {
  std::string path;
  SafetensorsHeader header;
};

// Reads N from the first 8 bytes and checks it against the cap and, if known, the file size.
Result<uint64_t> read_safetensors_header_length(std::span<const unsigned char> prefix, std::string_view file,
                                                std::optional<uint64_t> file_size = std::nullopt);

// Parses a header from `bytes`, which start at file offset 0 and must hold at least 8 + N bytes.
// With `file_size`, also checks that the tensor data fills the file exactly.
Result<SafetensorsHeader> parse_safetensors_header(std::span<const unsigned char> bytes, std::string_view file,
                                                   std::optional<uint64_t> file_size = std::nullopt);
// The same, with a parser that the caller keeps from header to header: a run of many shards
// allocates its buffers once.
Result<SafetensorsHeader> parse_safetensors_header(std::span<const unsigned char> bytes, std::string_view file,
                                                   std::optional<uint64_t> file_size, JsonDom& dom);

}  // namespace hfi
