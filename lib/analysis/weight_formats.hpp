// What a linear weight takes when served in another format (`fit --weight-dtype`): its values
// plus the scales and zero points the format stores beside them, as docs/quantization.md lays
// each layout out.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace hfi {

enum class WeightFormat { BF16, FP16, FP8, INT8, INT4, NVFP4, MXFP4 };

// "bf16", "fp16", "fp8", "int8", "int4", "nvfp4", "mxfp4".
std::optional<WeightFormat> parse_weight_format(std::string_view name);
const char* weight_format_name(WeightFormat format);
// How the format stores a matrix, in words (for notes and docs).
const char* weight_format_layout(WeightFormat format);

// Bytes of a linear weight of `shape` ([out, in], or [E, out, in] for fused experts) in `format`;
// nullopt past 64 bits.
std::optional<uint64_t> linear_weight_bytes(std::span<const uint64_t> shape, WeightFormat format);

}  // namespace hfi
