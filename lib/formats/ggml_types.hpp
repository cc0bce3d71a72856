// ggml's tensor element types as GGUF files number them, with the size of one block: quantized
// types store a block of `block_elements` values in `block_bytes` bytes, plain types are blocks
// of one. The sizes follow ggml's type traits (ggml.c); ids ggml has retired are unknown here,
// so a file that uses one is refused rather than measured wrongly.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hfi {

struct GgmlType {
  uint32_t id = 0;
  std::string_view name;  // as llama.cpp prints it: "F32", "Q4_K", "IQ2_XXS", "MXFP4"
  uint32_t block_elements = 1;
  uint32_t block_bytes = 0;
  bool quantized() const { return block_elements > 1; }
};

// The type with this id, or nullopt for an id ggml does not define (or no longer does).
std::optional<GgmlType> ggml_type(uint32_t id);

// What llama.cpp calls a file's `general.file_type` (its LLAMA_FTYPE_MOSTLY_* name without the
// prefix, e.g. "Q4_K_M"), or nullopt for an unknown value.
std::optional<std::string_view> llama_file_type_name(uint64_t file_type);

}  // namespace hfi
