// Test scaffolding: writes GGUF headers byte by byte, independently of the parser under test, and
// rebuilds a file's header from a published llama_model_loader dump (the metadata lines and the
// tensor lines llama.cpp printed while loading it), so fixtures come from real files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hfi::testing {

class GgufWriter {
 public:
  explicit GgufWriter(uint32_t version = 3) : version_(version) {}

  void add_string(const std::string& key, const std::string& value);
  void add_u32(const std::string& key, uint32_t value);
  void add_i32(const std::string& key, int32_t value);
  void add_u64(const std::string& key, uint64_t value);
  void add_f32(const std::string& key, float value);
  void add_bool(const std::string& key, bool value);
  // Arrays whose values do not matter to the tests: `count` strings "t0", "t1", ...; `count`
  // zeros of a 4-byte number type ("f32", "i32", "u32").
  void add_string_array(const std::string& key, uint64_t count);
  void add_number_array(const std::string& key, const std::string& type, uint64_t count);
  void add_u32_array(const std::string& key, const std::vector<uint32_t>& values);
  // A tensor: dims as llama.cpp prints them (innermost first), type by its ggml name ("q4_K").
  void add_tensor(const std::string& name, const std::vector<uint64_t>& dims, const std::string& type);

  // The header through the padding before the data; `data_bytes` gets the end of the last tensor.
  std::string header(uint64_t& data_bytes) const;

  // Raw pieces, for hostile inputs that the methods above would not write.
  static void put_u32(std::string& out, uint32_t v);
  static void put_u64(std::string& out, uint64_t v);

 private:
  void put_size(std::string& out, uint64_t v) const;
  void put_string(std::string& out, const std::string& s) const;
  uint32_t version_;
  uint64_t kv_count_ = 0;
  std::string kv_;
  struct Tensor {
    std::string name;
    std::vector<uint64_t> dims;
    uint32_t type;
    uint64_t bytes;
  };
  std::vector<Tensor> tensors_;
};

// Bytes of a tensor of this ggml type and these dims, from ggml's block sizes (a table of the
// test's own).
uint64_t ggml_tensor_bytes(const std::string& type, const std::vector<uint64_t>& dims);

// A GGUF header rebuilt from a llama_model_loader dump: "- kv N: key type = value" lines and
// "- tensor N: name type [ d0, d1, d2, d3 ]" lines. Where the dump printed no value (llama.cpp
// builds that did not), the value is taken from the same dump's llm_load_print_meta line that
// reports that key (n_ctx_train, n_embd, n_head_kv, ...); arrays get their printed count.
GgufWriter gguf_from_loader_dump(const std::string& dump);

}  // namespace hfi::testing
