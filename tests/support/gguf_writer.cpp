#include "support/gguf_writer.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace hfi::testing {
namespace {

struct TypeSize {
  uint32_t id, block, bytes;
};

// ggml.c's type traits for the types the fixtures and tests use, keyed the way llama.cpp prints
// them; written out here rather than taken from the library.
const std::map<std::string, TypeSize>& type_sizes() {
  static const std::map<std::string, TypeSize> sizes = {
      {"f32", {0, 1, 4}},        {"f16", {1, 1, 2}},        {"q4_0", {2, 32, 18}},   {"q4_1", {3, 32, 20}},
      {"q5_0", {6, 32, 22}},     {"q5_1", {7, 32, 24}},     {"q8_0", {8, 32, 34}},   {"q2_k", {10, 256, 84}},
      {"q3_k", {11, 256, 110}},  {"q4_k", {12, 256, 144}},  {"q5_k", {13, 256, 176}}, {"q6_k", {14, 256, 210}},
      {"iq2_xxs", {16, 256, 66}}, {"iq4_xs", {23, 256, 136}}, {"bf16", {30, 1, 2}},  {"mxfp4", {39, 32, 17}},
  };
  return sizes;
}

const TypeSize& size_of(std::string type) {
  for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto it = type_sizes().find(type);
  if (it == type_sizes().end()) throw std::runtime_error("gguf writer: unknown type " + type);
  return it->second;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

void GgufWriter::put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
void GgufWriter::put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
void GgufWriter::put_size(std::string& out, uint64_t v) const {
  if (version_ == 1) put_u32(out, static_cast<uint32_t>(v));
  else put_u64(out, v);
}
void GgufWriter::put_string(std::string& out, const std::string& s) const {
  put_size(out, s.size());
  out += s;
}

void GgufWriter::add_string(const std::string& key, const std::string& value) {
  put_string(kv_, key);
  put_u32(kv_, 8);
  put_string(kv_, value);
  ++kv_count_;
}
void GgufWriter::add_u32(const std::string& key, uint32_t value) {
  put_string(kv_, key);
  put_u32(kv_, 4);
  put_u32(kv_, value);
  ++kv_count_;
}
void GgufWriter::add_i32(const std::string& key, int32_t value) {
  put_string(kv_, key);
  put_u32(kv_, 5);
  put_u32(kv_, static_cast<uint32_t>(value));
  ++kv_count_;
}
void GgufWriter::add_u64(const std::string& key, uint64_t value) {
  put_string(kv_, key);
  put_u32(kv_, 10);
  put_u64(kv_, value);
  ++kv_count_;
}
void GgufWriter::add_f32(const std::string& key, float value) {
  put_string(kv_, key);
  put_u32(kv_, 6);
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  put_u32(kv_, bits);
  ++kv_count_;
}
void GgufWriter::add_bool(const std::string& key, bool value) {
  put_string(kv_, key);
  put_u32(kv_, 7);
  kv_ += static_cast<char>(value ? 1 : 0);
  ++kv_count_;
}
void GgufWriter::add_string_array(const std::string& key, uint64_t count) {
  put_string(kv_, key);
  put_u32(kv_, 9);
  put_u32(kv_, 8);
  put_size(kv_, count);
  for (uint64_t i = 0; i < count; ++i) put_string(kv_, "t" + std::to_string(i));
  ++kv_count_;
}
void GgufWriter::add_number_array(const std::string& key, const std::string& type, uint64_t count) {
  const uint32_t id = type == "f32" ? 6 : type == "i32" ? 5 : type == "u32" ? 4 : throw std::runtime_error("gguf writer: array of " + type);
  put_string(kv_, key);
  put_u32(kv_, 9);
  put_u32(kv_, id);
  put_size(kv_, count);
  kv_.append(static_cast<size_t>(count) * 4, '\0');
  ++kv_count_;
}
void GgufWriter::add_u32_array(const std::string& key, const std::vector<uint32_t>& values) {
  put_string(kv_, key);
  put_u32(kv_, 9);
  put_u32(kv_, 4);
  put_size(kv_, values.size());
  for (uint32_t v : values) put_u32(kv_, v);
  ++kv_count_;
}

uint64_t ggml_tensor_bytes(const std::string& type, const std::vector<uint64_t>& dims) {
  const TypeSize& t = size_of(type);
  uint64_t rows = 1;
  for (size_t i = 1; i < dims.size(); ++i) rows *= dims[i];
  return dims.at(0) / t.block * t.bytes * rows;
}

void GgufWriter::add_tensor(const std::string& name, const std::vector<uint64_t>& dims, const std::string& type) {
  tensors_.push_back({name, dims, size_of(type).id, ggml_tensor_bytes(type, dims)});
}

std::string GgufWriter::header(uint64_t& data_bytes) const {
  std::string out = "GGUF";
  put_u32(out, version_);
  put_size(out, tensors_.size());
  put_size(out, kv_count_);
  out += kv_;
  uint64_t offset = 0;
  for (const auto& t : tensors_) {
    put_string(out, t.name);
    put_u32(out, static_cast<uint32_t>(t.dims.size()));
    for (uint64_t d : t.dims) put_size(out, d);
    put_u32(out, t.type);
    put_u64(out, offset);
    data_bytes = offset + t.bytes;
    offset = (data_bytes + 31) / 32 * 32;  // each tensor padded to the default alignment, as llama.cpp writes
  }
  if (tensors_.empty()) data_bytes = 0;
  out.append((32 - out.size() % 32) % 32, '\0');
  return out;
}

GgufWriter gguf_from_loader_dump(const std::string& dump) {
  static const std::regex version_re(R"(\(version GGUF V(\d))");
  static const std::regex kv_re(R"(- kv\s+\d+:\s+(\S+)\s+(\S+)(?:\s+=\s?(.*))?\s*$)");
  static const std::regex tensor_re(R"(- tensor\s+\d+:\s+(\S+)\s+(\S+)\s+\[([^\]]*)\])");
  static const std::regex meta_re(R"(llm_load_print_meta: (\S.*?)\s+= (.*)$)");
  std::smatch m;
  uint32_t version = 3;
  if (std::regex_search(dump, m, version_re)) version = static_cast<uint32_t>(std::stoul(m[1]));
  std::map<std::string, std::string> meta;
  std::istringstream lines(dump);
  for (std::string line; std::getline(lines, line);)
    if (std::regex_search(line, m, meta_re)) meta[trim(m[1])] = trim(m[2]);
  // The print_meta line that shows each key's value, for dumps that printed none.
  const std::string arch = meta.count("arch") ? meta["arch"] : "llama";
  const std::map<std::string, std::string> from_meta = {
      {"general.architecture", "arch"},
      {"general.name", "general.name"},
      {arch + ".context_length", "n_ctx_train"},
      {arch + ".embedding_length", "n_embd"},
      {arch + ".block_count", "n_layer"},
      {arch + ".feed_forward_length", "n_ff"},
      {arch + ".rope.dimension_count", "n_rot"},
      {arch + ".attention.head_count", "n_head"},
      {arch + ".attention.head_count_kv", "n_head_kv"},
      {arch + ".attention.layer_norm_rms_epsilon", "f_norm_rms_eps"},
      {arch + ".rope.freq_base", "freq_base_train"},
  };
  GgufWriter w(version);
  std::istringstream again(dump);
  for (std::string line; std::getline(again, line);) {
    if (std::regex_search(line, m, tensor_re)) {
      std::vector<uint64_t> dims;
      std::istringstream ds(std::regex_replace(m[3].str(), std::regex(","), " "));
      for (uint64_t d; ds >> d;) dims.push_back(d);
      while (dims.size() > 1 && dims.back() == 1) dims.pop_back();
      w.add_tensor(m[1], dims, m[2]);
      continue;
    }
    if (!std::regex_search(line, m, kv_re)) continue;
    const std::string key = m[1], type = m[2];
    std::string value = m[3].matched ? trim(m[3]) : "";
    if (value.empty() && from_meta.count(key) && meta.count(from_meta.at(key))) value = meta[from_meta.at(key)];
    if (type.starts_with("arr")) {
      std::smatch a;
      static const std::regex arr_re(R"(arr\[(\w+),(\d+)\])");
      std::string element = "str";
      uint64_t count = meta.count("n_vocab") ? std::stoull(meta["n_vocab"]) : 0;
      if (std::regex_search(type, a, arr_re)) {
        element = a[1];
        count = std::stoull(a[2]);
      } else if (key.ends_with("scores")) {
        element = "f32";
      } else if (key.ends_with("token_type")) {
        element = "i32";
      }
      if (element == "str") w.add_string_array(key, count);
      else w.add_number_array(key, element, count);
      continue;
    }
    if (value.empty()) continue;  // nothing printed it: the key is left out
    if (type == "str") w.add_string(key, value);
    else if (type == "u32") w.add_u32(key, static_cast<uint32_t>(std::stoul(value)));
    else if (type == "i32") w.add_i32(key, static_cast<int32_t>(std::stol(value)));
    else if (type == "u64") w.add_u64(key, std::stoull(value));
    else if (type == "f32") w.add_f32(key, std::stof(value));
    else if (type == "bool") w.add_bool(key, value == "true");
    else throw std::runtime_error("gguf writer: dump value type " + type);
  }
  return w;
}

}  // namespace hfi::testing
