// Safetensors element types, spelled as in the format's header, with their bit widths.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hfi {

enum class Dtype {
  BOOL, U8, I8, I16, U16, F16, BF16, I32, U32, F32, I64, U64, F64,
  F8_E5M2, F8_E4M3, F8_E4M3FNUZ, F8_E5M2FNUZ, F8_E8M0, F4, F6_E2M3, F6_E3M2, C64,
};

std::optional<Dtype> parse_dtype(std::string_view name);
std::string_view dtype_name(Dtype d);
uint32_t dtype_bits(Dtype d);
bool dtype_is_float(Dtype d);
bool dtype_is_fp8(Dtype d);  // the four 8-bit float storage formats (not E8M0, a scale format)

}  // namespace hfi
