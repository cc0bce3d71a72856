#include "formats/safetensors_header.hpp"

#include <algorithm>
#include <unordered_set>

#include "core/checked.hpp"
#include "core/json.hpp"

namespace hfi {

Result<uint64_t> read_safetensors_header_length(std::span<const unsigned char> prefix, std::string_view file,
                                                std::optional<uint64_t> file_size) {
  auto n = read_u64_le(prefix);
  if (!n)
    return malformed(std::string(file), "header length",
                     "file is " + std::to_string(prefix.size()) + " bytes, shorter than the 8-byte header length");
  if (*n == 0) return malformed(std::string(file), "header length", "declared header length is 0");
  if (*n > kMaxSafetensorsHeader)
    return malformed(std::string(file), "header length",
                     "declared header length " + std::to_string(*n) + " exceeds the limit of " +
                         std::to_string(kMaxSafetensorsHeader) + " bytes");
  if (file_size && *n + 8 > *file_size)
    return malformed(std::string(file), "header length",
                     "declared header length " + std::to_string(*n) + " runs past the end of the " +
                         std::to_string(*file_size) + "-byte file");
  return *n;
}

namespace {

Result<TensorInfo> parse_tensor(const std::string& name, const Json& entry, std::string_view file) {
  std::string f(file);
  if (!entry.is_object()) return malformed(f, name, "tensor entry is not a JSON object");
  TensorInfo t;
  t.name = name;
  const Json* dtype = entry.find("dtype");
  if (!dtype || !dtype->is_string()) return malformed(f, name + ".dtype", "missing or not a string");
  auto parsed = parse_dtype(dtype->as_string());
  if (!parsed) return malformed(f, name + ".dtype", "unknown dtype \"" + dtype->as_string() + "\"");
  t.dtype = *parsed;

  const Json* shape = entry.find("shape");
  if (!shape || !shape->is_array()) return malformed(f, name + ".shape", "missing or not an array");
  t.elements = 1;
  for (const Json& dim : shape->items()) {
    auto d = dim.as_uint();
    if (!dim.is_integer() || !d) return malformed(f, name + ".shape", "dimension is not a non-negative integer");
    auto product = checked_mul(t.elements, *d);
    if (!product) return malformed(f, name + ".shape", "element count overflows 64 bits");
    t.elements = *product;
    t.shape.push_back(*d);
  }

  const Json* offsets = entry.find("data_offsets");
  if (!offsets || !offsets->is_array() || offsets->items().size() != 2)
    return malformed(f, name + ".data_offsets", "missing or not an array of two offsets");
  auto begin = offsets->items()[0].as_uint();
  auto end = offsets->items()[1].as_uint();
  if (!begin || !end || !offsets->items()[0].is_integer() || !offsets->items()[1].is_integer())
    return malformed(f, name + ".data_offsets", "offsets must be non-negative integers");
  if (*end < *begin) return malformed(f, name + ".data_offsets", "end offset is before begin offset");
  t.begin = *begin;
  t.end = *end;

  auto bits = checked_mul(t.elements, dtype_bits(t.dtype));
  if (!bits) return malformed(f, name + ".shape", "byte size overflows 64 bits");
  if (*bits % 8 != 0)
    return malformed(f, name + ".shape", "sub-byte tensor does not fill a whole number of bytes");
  if (t.end - t.begin != *bits / 8)
    return malformed(f, name + ".data_offsets",
                     "spans " + std::to_string(t.end - t.begin) + " bytes but " + std::to_string(t.elements) +
                         " elements of " + std::string(dtype_name(t.dtype)) + " need " + std::to_string(*bits / 8));
  return t;
}

}  // namespace

Result<SafetensorsHeader> parse_safetensors_header(std::span<const unsigned char> bytes, std::string_view file,
                                                   std::optional<uint64_t> file_size) {
  std::string f(file);
  auto n = read_safetensors_header_length(bytes, file, file_size);
  if (!n) return n.error();
  if (bytes.size() - 8 < *n)
    return malformed(f, "header", "truncated: declared " + std::to_string(*n) + " bytes, only " +
                                      std::to_string(bytes.size() - 8) + " available");
  std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 8, static_cast<size_t>(*n));
  // Writers pad the header with spaces to an 8-byte boundary; JSON treats them as whitespace.
  if (text.empty() || text.front() != '{') return malformed(f, "header", "does not start with '{'");
  auto json = parse_json(text, file, JsonLimits{static_cast<size_t>(kMaxSafetensorsHeader), 16});
  if (!json) {
    Error e = json.error();
    e.field = "header";
    return e;
  }
  if (!json->is_object()) return malformed(f, "header", "is not a JSON object");

  SafetensorsHeader h;
  h.header_length = *n;
  std::unordered_set<std::string_view> seen;
  for (const auto& [key, value] : json->members()) {
    if (!seen.insert(key).second) return malformed(f, key, "appears twice in the header");
    if (key == "__metadata__") {
      if (!value.is_object()) return malformed(f, "__metadata__", "is not a JSON object");
      for (const auto& [mk, mv] : value.members()) {
        if (!mv.is_string()) return malformed(f, "__metadata__." + mk, "value is not a string");
        h.metadata.emplace_back(mk, mv.as_string());
      }
      continue;
    }
    auto t = parse_tensor(key, value, file);
    if (!t) return t.error();
    h.tensors.push_back(std::move(t.value()));
  }

  std::sort(h.tensors.begin(), h.tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t expected_begin = 0;
  for (const auto& t : h.tensors) {
    if (t.begin != expected_begin)
      return malformed(f, t.name + ".data_offsets",
                       t.begin < expected_begin ? "overlaps the previous tensor's data"
                                                : "leaves a gap after the previous tensor's data");
    expected_begin = t.end;
  }
  h.data_bytes = expected_begin;
  if (file_size) {
    auto needed = checked_add(8 + h.header_length, h.data_bytes);
    if (!needed || *needed != *file_size)
      return malformed(f, "data_offsets",
                       "tensor data ends at byte " + (needed ? std::to_string(*needed) : std::string("(overflow)")) +
                           " but the file has " + std::to_string(*file_size) + " bytes");
  }
  return h;
}

}  // namespace hfi
