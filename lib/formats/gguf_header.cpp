#include "formats/gguf_header.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <unordered_set>

#include "core/checked.hpp"

namespace hfi {
namespace {

// Inside the parser, running out of prefix and finding a fault both leave from deep in the walk;
// they travel as these two and are turned into the result at the boundary.
struct OutOfPrefix {
  uint64_t bytes;
};
struct Fault {
  std::string field, message;
};

uint32_t value_size(GgufType t) {
  switch (t) {
    case GgufType::U8: case GgufType::I8: case GgufType::Bool: return 1;
    case GgufType::U16: case GgufType::I16: return 2;
    case GgufType::U32: case GgufType::I32: case GgufType::F32: return 4;
    case GgufType::U64: case GgufType::I64: case GgufType::F64: return 8;
    case GgufType::String: case GgufType::Array: return 0;
  }
  return 0;
}

class Reader {
 public:
  Reader(std::span<const unsigned char> prefix, uint64_t file_size) : bytes_(prefix), file_size_(file_size) {}

  uint64_t pos() const { return pos_; }
  uint64_t left_in_file() const { return file_size_ - pos_; }

  // The next n bytes; leaves the parse when the prefix ends first. A header longer than the cap
  // or than the file is a fault, named by `field`.
  const unsigned char* take(uint64_t n, const std::string& field) {
    if (n > left_in_file()) throw Fault{field, "runs past the end of the file (" + std::to_string(file_size_) + " bytes)"};
    if (pos_ + n > kMaxGgufHeader)
      throw Fault{field, "puts the header past " + std::to_string(kMaxGgufHeader >> 20) + " MiB, more than any real GGUF header"};
    if (pos_ + n > bytes_.size()) throw OutOfPrefix{pos_ + n};
    const unsigned char* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }

  uint64_t uint(uint32_t width, const std::string& field) {
    const unsigned char* p = take(width, field);
    uint64_t v = 0;
    for (uint32_t i = width; i-- > 0;) v = (v << 8) | p[i];
    return v;
  }

  // A count or length: 32 bits wide in version 1, 64 after.
  uint64_t size(uint32_t version, const std::string& field) { return uint(version == 1 ? 4 : 8, field); }

  // A string's length, checked against the file before its bytes are asked for. `keep` bytes of it
  // at most are returned; a longer one is skipped and returns nullopt with its length in `length`.
  std::optional<std::string> string(uint32_t version, const std::string& field, uint64_t keep, uint64_t& length) {
    length = size(version, field + " length");
    if (length > left_in_file()) throw Fault{field, "says its string is " + std::to_string(length) + " bytes, more than the rest of the file"};
    const unsigned char* p = take(length, field);
    if (length > keep) return std::nullopt;
    return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(length));
  }

 private:
  std::span<const unsigned char> bytes_;
  uint64_t file_size_;
  uint64_t pos_ = 0;
};

GgufType value_type(Reader& in, const std::string& field) {
  const uint64_t t = in.uint(4, field + " type");
  if (t > static_cast<uint32_t>(GgufType::F64)) throw Fault{field, "has value type " + std::to_string(t) + ", which GGUF does not define"};
  return static_cast<GgufType>(t);
}

GgufValue scalar(Reader& in, GgufType t, uint32_t version, const std::string& field) {
  GgufValue v;
  v.type = t;
  if (t == GgufType::String) {
    auto text = in.string(version, field, kMaxKeptString, v.text_length);
    v.elided = !text;
    if (text) v.text = std::move(*text);
    return v;
  }
  const uint32_t width = value_size(t);
  const uint64_t raw = in.uint(width, field);
  switch (t) {
    case GgufType::F32: {
      float f;
      const auto bits = static_cast<uint32_t>(raw);
      std::memcpy(&f, &bits, 4);
      v.real = f;
      break;
    }
    case GgufType::F64: v.real = std::bit_cast<double>(raw); break;
    case GgufType::I8: case GgufType::I16: case GgufType::I32: case GgufType::I64: {
      const uint32_t shift = 64 - 8 * width;
      const auto s = static_cast<int64_t>(raw << shift) >> shift;  // sign-extend
      v.is_negative = s < 0;
      v.integer = static_cast<uint64_t>(s);
      break;
    }
    default: v.integer = raw; break;
  }
  return v;
}

GgufValue value(Reader& in, GgufType t, uint32_t version, const std::string& field, uint64_t& numbers_kept) {
  if (t != GgufType::Array) return scalar(in, t, version, field);
  GgufValue v;
  v.type = GgufType::Array;
  v.element_type = value_type(in, field + " element");
  if (v.element_type == GgufType::Array) throw Fault{field, "is an array of arrays, which GGUF readers do not take"};
  v.count = in.size(version, field + " count");
  const uint64_t least = v.element_type == GgufType::String ? (version == 1 ? 4 : 8) : value_size(v.element_type);
  if (v.count > in.left_in_file() / least)
    throw Fault{field, "says it holds " + std::to_string(v.count) + " elements, more than the rest of the file can"};
  if (v.element_type == GgufType::String) {
    v.elided = true;
    uint64_t length = 0;
    for (uint64_t i = 0; i < v.count; ++i) in.string(version, field, 0, length);  // walked, not kept
    return v;
  }
  const bool keep = v.count <= kMaxKeptArray && numbers_kept + v.count <= kMaxKeptNumbers;
  v.elided = !keep;
  if (!keep) {
    in.take(v.count * least, field);  // skipped by its count
    return v;
  }
  numbers_kept += v.count;
  v.numbers.reserve(static_cast<size_t>(v.count));
  for (uint64_t i = 0; i < v.count; ++i) v.numbers.push_back(scalar(in, v.element_type, version, field).as_number().value_or(0));
  return v;
}

GgufTensor tensor_info(Reader& in, uint32_t version, uint64_t index) {
  const std::string field = "tensor " + std::to_string(index);
  GgufTensor t;
  uint64_t length = 0;
  auto name = in.string(version, field + " name", kMaxKeptString, length);
  if (!name) throw Fault{field + " name", "is " + std::to_string(length) + " bytes long"};
  t.name = std::move(*name);
  const std::string named = "tensor " + t.name;
  const uint64_t n_dims = in.uint(4, named + " n_dims");
  if (n_dims < 1 || n_dims > 4) throw Fault{named + " n_dims", "is " + std::to_string(n_dims) + "; ggml tensors have 1 to 4 dimensions"};
  t.elements = 1;
  for (uint64_t d = 0; d < n_dims; ++d) {
    const uint64_t dim = in.uint(version == 1 ? 4 : 8, named + " dims");
    if (dim > static_cast<uint64_t>(INT64_MAX)) throw Fault{named + " dims", "holds " + std::to_string(dim) + ", past what ggml can index"};
    auto product = checked_mul(t.elements, dim);
    if (!product || *product > static_cast<uint64_t>(INT64_MAX))
      throw Fault{named + " dims", "multiply past 2^63 elements"};
    t.elements = *product;
    t.dims.push_back(dim);
  }
  const uint64_t type_id = in.uint(4, named + " type");
  auto type = type_id <= UINT32_MAX ? ggml_type(static_cast<uint32_t>(type_id)) : std::nullopt;
  if (!type) throw Fault{named + " type", "is ggml type " + std::to_string(type_id) + ", which this build does not know (a newer ggml, or a retired type)"};
  t.type = *type;
  if (t.dims[0] % t.type.block_elements != 0)
    throw Fault{named + " dims", "has " + std::to_string(t.dims[0]) + " values per row, not a whole number of " + std::string(t.type.name) +
                                     " blocks of " + std::to_string(t.type.block_elements)};
  auto bytes = checked_mul(t.elements / t.type.block_elements, t.type.block_bytes);
  if (!bytes) throw Fault{named + " dims", "give a size past 2^64 bytes"};
  t.bytes = *bytes;
  t.offset = in.uint(8, named + " offset");
  return t;
}

// Every tensor inside the data section, aligned, and none over another; the data's end.
uint64_t check_layout(const GgufHeader& h, uint64_t file_size) {
  std::vector<const GgufTensor*> by_offset;
  by_offset.reserve(h.tensors.size());
  for (const auto& t : h.tensors) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(), [](const GgufTensor* a, const GgufTensor* b) { return a->offset < b->offset; });
  uint64_t end = 0;
  const uint64_t room = file_size - h.data_offset;
  for (const GgufTensor* t : by_offset) {
    const std::string field = "tensor " + t->name + " offset";
    if (t->offset % h.alignment != 0)
      throw Fault{field, std::to_string(t->offset) + " is not a multiple of the alignment " + std::to_string(h.alignment)};
    if (t->offset < end) throw Fault{field, std::to_string(t->offset) + " overlaps the tensor before it"};
    auto tensor_end = checked_add(t->offset, t->bytes);
    if (!tensor_end || *tensor_end > room)
      throw Fault{field, "puts its " + std::to_string(t->bytes) + " bytes past the end of the file (" + std::to_string(file_size) +
                             " bytes): the file is cut short, or the header is wrong"};
    end = *tensor_end;
  }
  return end;
}

GgufHeader parse(Reader& in, uint64_t file_size) {
  GgufHeader h;
  const unsigned char* magic = in.take(4, "magic");
  if (std::memcmp(magic, "GGUF", 4) != 0) throw Fault{"magic", "is not GGUF: this is not a GGUF file"};
  const uint64_t version = in.uint(4, "version");
  if (version == 0 || version > 3) {
    const uint32_t swapped = __builtin_bswap32(static_cast<uint32_t>(version));
    if (swapped >= 1 && swapped <= 3)
      throw Fault{"version", "is stored big-endian: a GGUF for big-endian machines, which hfinspect does not read"};
    throw Fault{"version", "is " + std::to_string(version) + "; GGUF versions 1 to 3 are known"};
  }
  h.version = static_cast<uint32_t>(version);
  const uint64_t tensor_count = in.size(h.version, "tensor_count");
  const uint64_t kv_count = in.size(h.version, "metadata_kv_count");
  if (tensor_count > kMaxGgufTensors)
    throw Fault{"tensor_count", "is " + std::to_string(tensor_count) + ", past the " + std::to_string(kMaxGgufTensors) + " a header may hold"};
  if (kv_count > kMaxGgufKeys) throw Fault{"metadata_kv_count", "is " + std::to_string(kv_count) + ", past the " + std::to_string(kMaxGgufKeys) + " a header may hold"};
  std::unordered_set<std::string> keys;
  uint64_t numbers_kept = 0;
  for (uint64_t i = 0; i < kv_count; ++i) {
    const std::string field = "metadata key " + std::to_string(i);
    uint64_t length = 0;
    auto key = in.string(h.version, field, kMaxKeptString, length);
    if (!key) throw Fault{field, "is " + std::to_string(length) + " bytes long"};
    if (!keys.insert(*key).second) throw Fault{*key, "appears twice in the metadata"};
    const GgufType t = value_type(in, *key);
    GgufValue v = value(in, t, h.version, *key, numbers_kept);
    h.metadata.push_back({std::move(*key), std::move(v)});
  }
  if (const GgufValue* a = h.find("general.alignment")) {
    auto n = a->type == GgufType::U32 ? a->as_unsigned() : std::nullopt;
    if (!n || *n == 0 || (*n & (*n - 1)) != 0) throw Fault{"general.alignment", "must be a u32 power of two"};
    h.alignment = *n;
  }
  std::unordered_set<std::string_view> names;
  h.tensors.reserve(static_cast<size_t>(std::min<uint64_t>(tensor_count, in.left_in_file() / 25)));
  for (uint64_t i = 0; i < tensor_count; ++i) {
    h.tensors.push_back(tensor_info(in, h.version, i));
    h.elements += h.tensors.back().elements;  // each below 2^63; a sum past 2^64 is caught below
    h.tensor_bytes += h.tensors.back().bytes;
  }
  for (const auto& t : h.tensors)
    if (!names.insert(t.name).second) throw Fault{"tensor " + t.name, "is named twice"};
  const uint64_t end_of_infos = in.pos();
  h.data_offset = (end_of_infos + h.alignment - 1) / h.alignment * h.alignment;
  if (h.data_offset > file_size) throw Fault{"tensor infos", "end past the end of the file"};
  h.data_bytes = check_layout(h, file_size);  // no overlaps inside the file: the sums above cannot wrap
  return h;
}

}  // namespace

std::string_view gguf_type_name(GgufType type) {
  static constexpr std::string_view kNames[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "str", "arr", "u64", "i64", "f64"};
  const auto i = static_cast<uint32_t>(type);
  return i < std::size(kNames) ? kNames[i] : "?";
}

std::optional<uint64_t> GgufValue::as_unsigned() const {
  switch (type) {
    case GgufType::U8: case GgufType::U16: case GgufType::U32: case GgufType::U64: case GgufType::Bool: return integer;
    case GgufType::I8: case GgufType::I16: case GgufType::I32: case GgufType::I64:
      if (is_negative) return std::nullopt;
      return integer;
    default: return std::nullopt;
  }
}

std::optional<double> GgufValue::as_number() const {
  if (type == GgufType::F32 || type == GgufType::F64) return real;
  if (is_negative) return static_cast<double>(static_cast<int64_t>(integer));
  if (auto u = as_unsigned()) return static_cast<double>(*u);
  return std::nullopt;
}

const GgufValue* GgufHeader::find(std::string_view key) const {
  for (const auto& kv : metadata)
    if (kv.key == key) return &kv.value;
  return nullptr;
}

std::optional<uint64_t> GgufHeader::unsigned_value(std::string_view key) const {
  const GgufValue* v = find(key);
  return v ? v->as_unsigned() : std::nullopt;
}

std::optional<double> GgufHeader::number(std::string_view key) const {
  const GgufValue* v = find(key);
  return v ? v->as_number() : std::nullopt;
}

std::optional<std::string> GgufHeader::string(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v || v->type != GgufType::String || v->elided) return std::nullopt;
  return v->text;
}

Result<GgufParse> parse_gguf_header(std::span<const unsigned char> prefix, std::string_view file, uint64_t file_size) {
  if (prefix.size() > file_size) prefix = prefix.first(static_cast<size_t>(file_size));
  Reader in(prefix, file_size);
  try {
    return GgufParse(parse(in, file_size));
  } catch (const OutOfPrefix& more) {
    return GgufParse(GgufNeedMore{more.bytes});
  } catch (const Fault& fault) {
    return malformed(std::string(file), fault.field, fault.message);
  }
}

}  // namespace hfi
