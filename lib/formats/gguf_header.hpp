// Pure parser for the header of a GGUF file (llama.cpp's format, versions 1 to 3): the magic,
// the metadata key/value pairs and the tensor infos, up to the start of the tensor data. It reads
// a prefix of the file: when the prefix ends inside the header it says how many bytes it needs at
// least, so a remote reader can fetch the header in a few growing range requests and nothing past
// it. Large arrays (a tokenizer's 150k tokens) are walked and counted, never kept.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/error.hpp"
#include "formats/ggml_types.hpp"

namespace hfi {

// Bytes from the start of the file to the start of the tensor data, at most. Real headers are a
// few MB (a 256k-token vocabulary with its merges); past this the file is refused.
inline constexpr uint64_t kMaxGgufHeader = 256u << 20;
// Counts a header may declare. Real files hold a few thousand tensors and under a hundred keys.
inline constexpr uint64_t kMaxGgufTensors = 1u << 18;
inline constexpr uint64_t kMaxGgufKeys = 1u << 16;
// Numeric arrays up to this many elements keep their values (per-layer head counts, window
// patterns), while the header's kept numbers stay under kMaxKeptNumbers; longer ones, and string
// arrays, keep only their length.
inline constexpr uint64_t kMaxKeptArray = 1u << 16;
inline constexpr uint64_t kMaxKeptNumbers = 1u << 20;
// String values longer than this keep only their length (a chat template is a few KB).
inline constexpr uint64_t kMaxKeptString = 1u << 16;

enum class GgufType : uint32_t { U8 = 0, I8, U16, I16, U32, I32, F32, Bool, String, Array, U64, I64, F64 };

// "u8", "i32", "f32", "bool", "str", "arr", ...: llama.cpp's spelling.
std::string_view gguf_type_name(GgufType type);

struct GgufValue {
  GgufType type = GgufType::U8;
  // Scalars: integers and bools in `integer` (signed ones sign-extended, `is_negative` set),
  // floats in `real`, strings in `text` (empty with `elided` when longer than kMaxKeptString).
  uint64_t integer = 0;
  bool is_negative = false;
  double real = 0;
  std::string text;
  uint64_t text_length = 0;
  // Arrays: the element type, the count, and the elements when numeric and short enough.
  GgufType element_type = GgufType::U8;
  uint64_t count = 0;
  std::vector<double> numbers;
  bool elided = false;  // the string's text or the array's items were not kept

  // The value as an unsigned integer: a non-negative integer of any width, or a bool.
  std::optional<uint64_t> as_unsigned() const;
  std::optional<double> as_number() const;
};

struct GgufKeyValue {
  std::string key;
  GgufValue value;
};

struct GgufTensor {
  std::string name;
  std::vector<uint64_t> dims;  // ne[0] first: the innermost dimension (safetensors' last)
  GgmlType type;
  uint64_t offset = 0;  // from the start of the data section
  uint64_t elements = 0;
  uint64_t bytes = 0;
};

struct GgufHeader {
  uint32_t version = 0;
  std::vector<GgufKeyValue> metadata;  // in file order
  std::vector<GgufTensor> tensors;     // in file order
  uint64_t alignment = 32;
  uint64_t data_offset = 0;  // where the tensor data starts
  uint64_t data_bytes = 0;   // the end of the last tensor, from data_offset
  uint64_t elements = 0;     // over every tensor
  uint64_t tensor_bytes = 0;

  const GgufValue* find(std::string_view key) const;
  std::optional<uint64_t> unsigned_value(std::string_view key) const;
  std::optional<double> number(std::string_view key) const;
  std::optional<std::string> string(std::string_view key) const;
};

// One GGUF file's header and where it was read from.
struct GgufFile {
  std::string path;
  uint64_t size = 0;
  GgufHeader header;
};

// The prefix given ends inside the header: at least this many bytes from the start are needed.
struct GgufNeedMore {
  uint64_t bytes = 0;
};

using GgufParse = std::variant<GgufHeader, GgufNeedMore>;

// Parses the header from `prefix`, the first bytes of a file of `file_size` bytes. Every count and
// length is checked against what the file can hold, and against the caps above, before anything
// is kept; every tensor must lie inside the file. Errors name the field at fault.
Result<GgufParse> parse_gguf_header(std::span<const unsigned char> prefix, std::string_view file, uint64_t file_size);

}  // namespace hfi
