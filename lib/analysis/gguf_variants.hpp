// A GGUF repository's files as the variants a user picks from: one quantization per single file
// or per split set (name-00001-of-00003.gguf ...), multimodal projectors set apart. Each variant
// carries what the variants table shows, counted from its tensor infos.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "formats/gguf_header.hpp"

namespace hfi {

struct GgufTypeCount {
  std::string_view type;  // ggml type name
  uint64_t tensors = 0, elements = 0, bytes = 0;
};

struct GgufVariant {
  std::string label;       // "Q4_K_M": general.file_type's name, else read off the file name
  std::string first_file;  // the file, or the first part of a split set
  std::vector<const GgufFile*> parts;  // in part order
  uint64_t expected_parts = 1;         // what the split's name (and split.count) announce
  bool projector = false;              // a multimodal projector (mmproj), not a model
  uint64_t file_bytes = 0, tensor_bytes = 0, elements = 0;
  std::vector<GgufTypeCount> by_type;  // most elements first
  bool complete() const { return parts.size() == expected_parts; }
  const GgufHeader& header() const { return parts.front()->header; }  // the part with the metadata
  // Bits per stored weight: tensor bytes × 8 / elements (0 without elements).
  double bits_per_weight() const;
};

// Groups every file into its variant; a split set whose parts disagree (a part named twice, a
// split.count against the name) is an error naming the file. Projectors come last.
Result<std::vector<GgufVariant>> group_gguf_variants(const std::vector<GgufFile>& files);

// The variant `wanted` names: its label (any case: "q4_k_m"), its first file, or the file name
// without folders. A usage error lists the choices when none matches.
Result<const GgufVariant*> select_gguf_variant(const std::vector<GgufVariant>& variants, const std::string& wanted);

}  // namespace hfi
