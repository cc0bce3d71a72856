// What the tensors show about quantization, module by module: decode_storage() groups stored
// tensors by module prefix using each format's suffix vocabulary (../shared/docs/quant-formats.md
// §1, §12.1), recovers every quantized linear's logical shape, and files scales, zeros, g_idx and
// the like as bookkeeping. This is the tensor side of the audit; quant_config.hpp is the declared side.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quant/quant_config.hpp"

namespace hfi {

// One quantized linear (or fused expert tensor) as stored.
struct QuantModule {
  // Prefix shared by its tensors, e.g. "model.layers.0.self_attn.q_proj": a view of a leading
  // part of a stored tensor's name.
  std::string_view module;
  QuantScheme scheme = QuantScheme::None;
  size_t logical = SIZE_MAX;   // position of the weight it stores among the logical tensors kept beside it
  // Stored tensors of the module (its weight and every companion). Only the count is kept: the
  // names are the snapshot's, and DeepSeek-V3's 46k modules spent 138k allocations copying them.
  uint32_t stored_tensors = 0;
  std::vector<std::string> missing;   // companions the scheme requires that are not stored ("qzeros", ...)
  std::optional<uint32_t> bits;       // bits per value implied by the packing (GPTQ/AWQ: from shapes)
  std::optional<uint32_t> group_size; // elements per scale along the input, from the scale shape
  std::array<uint64_t, 2> block{};    // FP8 block [out_b, in_b], from weight and scale shapes; {0, 0} if not block-scaled
  uint64_t value_bytes = 0;           // packed values
  uint64_t bookkeeping_bytes = 0;     // scales, zeros, g_idx, ...
  std::vector<std::string> problems;  // shape inconsistencies found while decoding (scale rows != out, ...)
};

}  // namespace hfi
