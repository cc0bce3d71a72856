#include "formats/safetensors_header.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>

#include "core/checked.hpp"
#include "core/json_dom.hpp"
#include "core/flat_index.hpp"
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

void SafetensorsHeader::own_names() {
  size_t total = 0;
  for (const auto& t : tensors) total += t.name.size();
  auto storage = std::make_shared<std::string>();
  storage->reserve(total);
  for (const auto& t : tensors) storage->append(t.name);
  size_t at = 0;
  for (auto& t : tensors) {
    size_t n = t.name.size();
    t.name = std::string_view(storage->data() + at, n);
    at += n;
  }
  names = std::move(storage);
}

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// Checks one tensor entry's values and fills `t` with them; on a bad value, says which field and
// why. The message is built only on that path: this runs for every tensor of every shard.
struct BadField {
  std::string_view field;
  std::string message;
};
std::optional<BadField> fill_tensor(TensorInfo& t, std::string_view key, Dtype dtype, std::span<const uint64_t> dims,
                                    uint64_t begin, uint64_t end) {
  t.dtype = dtype;
  t.elements = 1;
  for (uint64_t d : dims) {
    auto product = checked_mul(t.elements, d);
    if (!product) return BadField{".shape", "element count overflows 64 bits"};
    t.elements = *product;
  }
  if (end < begin) return BadField{".data_offsets", "end offset is before begin offset"};
  t.begin = begin;
  t.end = end;
  auto bits = checked_mul(t.elements, dtype_bits(t.dtype));
  if (!bits) return BadField{".shape", "byte size overflows 64 bits"};
  if (*bits % 8 != 0) return BadField{".shape", "sub-byte tensor does not fill a whole number of bytes"};
  if (t.end - t.begin != *bits / 8)
    return BadField{".data_offsets", "spans " + std::to_string(t.end - t.begin) + " bytes but " + std::to_string(t.elements) +
                                         " elements of " + std::string(dtype_name(t.dtype)) + " need " + std::to_string(*bits / 8)};
  t.shape.assign(dims.begin(), dims.end());
  t.name = key;  // a view into the text being parsed until own_names()
  return std::nullopt;
}

// A field name against a short literal, compared inline: a library call per field was a tenth of
// reading a shard header.
template <size_t N>
bool is(std::string_view text, const char (&literal)[N]) {
  return text.size() == N - 1 && std::memcmp(text.data(), literal, N - 1) == 0;
}

// A non-negative integer written as one: the reference reader takes 2.0 or 2e0 for no size or
// offset, and neither does this one.
std::optional<uint64_t> plain_integer(element e) {
  if (e.type() == simdjson::dom::element_type::UINT64) return uint64_t(e);
  if (e.type() == simdjson::dom::element_type::INT64 && int64_t(e) >= 0) return static_cast<uint64_t>(int64_t(e));
  return std::nullopt;
}

// Reads one tensor entry from the simdjson DOM.
// `dims` is scratch space, reused from tensor to tensor.
Result<TensorInfo> parse_tensor(std::string_view key, element entry, std::string_view file, std::vector<uint64_t>& dims) {
  auto fail = [&](std::string_view field, const std::string& message) {
    return malformed(std::string(file), std::string(key) + std::string(field), message);
  };
  if (!entry.is_object()) return fail("", "tensor entry is not a JSON object");
  // One pass over the entry's fields rather than three keyed lookups. A field given twice is
  // refused, as the reference reader (serde, in the safetensors crate) refuses it.
  std::optional<element> dtype, shape, offsets;
  for (auto [name, value] : simdjson::dom::object(entry)) {
    std::optional<element>* slot = is(name, "dtype") ? &dtype : is(name, "shape") ? &shape : is(name, "data_offsets") ? &offsets : nullptr;
    if (!slot) continue;
    if (slot->has_value()) return fail("." + std::string(name), "appears twice in the entry");
    *slot = value;
  }
  std::string_view dtype_text;
  if (!dtype || dtype->get_string().get(dtype_text)) return fail(".dtype", "missing or not a string");
  auto parsed_dtype = parse_dtype(dtype_text);
  if (!parsed_dtype) return fail(".dtype", "unknown dtype \"" + std::string(dtype_text) + "\"");
  simdjson::dom::array shape_items;
  if (!shape || shape->get_array().get(shape_items)) return fail(".shape", "missing or not an array");
  dims.clear();
  uint64_t elements = 1;
  for (element dim : shape_items) {
    auto d = plain_integer(dim);
    if (!d) return fail(".shape", "dimension is not a non-negative integer");
    auto product = checked_mul(elements, *d);
    if (!product) return fail(".shape", "element count overflows 64 bits");
    elements = *product;
    dims.push_back(*d);
  }
  simdjson::dom::array pair;
  if (!offsets || offsets->get_array().get(pair) || pair.size() != 2)
    return fail(".data_offsets", "missing or not an array of two offsets");
  auto it = pair.begin();
  auto begin = plain_integer(*it);
  ++it;
  auto end = plain_integer(*it);
  if (!begin || !end) return fail(".data_offsets", "offsets must be non-negative integers");
  TensorInfo t;
  if (auto bad = fill_tensor(t, key, *parsed_dtype, dims, *begin, *end)) return fail(bad->field, bad->message);
  return t;
}

constexpr size_t kHeaderDepth = 16;

Status read_metadata(element value, const std::string& f, SafetensorsHeader& h) {
  if (!value.is_object()) return malformed(f, "__metadata__", "is not a JSON object");
  for (auto [mk, mv] : simdjson::dom::object(value)) {
    if (!mv.is_string()) return malformed(f, "__metadata__." + std::string(mk), "value is not a string");
    h.metadata.emplace_back(std::string(mk), std::string(std::string_view(mv)));
  }
  return Ok{};
}

// The tensor entries and __metadata__ into `h`, in file order.
Status read_entries(std::string_view text, const std::string& f, JsonDom& dom, SafetensorsHeader& h) {
  auto root = dom.parse(text, f, JsonLimits{static_cast<size_t>(kMaxSafetensorsHeader), kHeaderDepth});
  if (!root) {
    Error e = root.error();
    e.field = "header";
    return e;
  }
  if (!root->is_object()) return malformed(f, "header", "is not a JSON object");
  simdjson::dom::object top(*root);
  h.tensors.reserve(top.size());
  std::vector<std::string_view> keys;  // views into the DOM, alive with `dom`
  keys.reserve(top.size());
  auto key_of = [&](uint32_t id) { return keys[id]; };
  FlatIndex seen;
  seen.reserve(top.size());
  std::vector<uint64_t> dims;
  for (auto [key, value] : top) {
    keys.push_back(key);
    if (seen.insert(key, static_cast<uint32_t>(keys.size() - 1), key_of, false) != FlatIndex::kEmpty)
      return malformed(f, std::string(key), "appears twice in the header");
    if (key == "__metadata__") {
      auto status = read_metadata(value, f, h);
      if (!status) return status.error();
      continue;
    }
    auto t = parse_tensor(key, value, f, dims);
    if (!t) return t.error();
    h.tensors.push_back(std::move(t.value()));
  }
  h.own_names();  // the keys are views into `dom`
  return Ok{};
}

}  // namespace

Result<SafetensorsHeader> parse_safetensors_header(std::span<const unsigned char> bytes, std::string_view file,
                                                   std::optional<uint64_t> file_size, JsonDom& dom) {
  std::string f(file);
  auto n = read_safetensors_header_length(bytes, file, file_size);
  if (!n) return n.error();
  if (bytes.size() - 8 < *n)
    return malformed(f, "header", "truncated: declared " + std::to_string(*n) + " bytes, only " +
                                      std::to_string(bytes.size() - 8) + " available");
  std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 8, static_cast<size_t>(*n));
  // Writers pad the header with spaces to an 8-byte boundary; JSON treats them as whitespace.
  if (text.empty() || text.front() != '{') return malformed(f, "header", "does not start with '{'");
  SafetensorsHeader h;
  h.header_length = *n;
  auto status = read_entries(text, f, dom, h);
  if (!status) return status.error();
  auto by_offset = [](const TensorInfo& a, const TensorInfo& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; };
  if (!std::is_sorted(h.tensors.begin(), h.tensors.end(), by_offset)) std::sort(h.tensors.begin(), h.tensors.end(), by_offset);
  uint64_t expected_begin = 0;
  for (const auto& t : h.tensors) {
    if (t.begin != expected_begin)
      return malformed(f, std::string(t.name) + ".data_offsets",
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

Result<SafetensorsHeader> parse_safetensors_header(std::span<const unsigned char> bytes, std::string_view file,
                                                   std::optional<uint64_t> file_size) {
  JsonDom dom;
  return parse_safetensors_header(bytes, file, file_size, dom);
}

}  // namespace hfi
