#include "analysis/weight_formats.hpp"

#include <array>
#include <utility>

#include "core/checked.hpp"

namespace hfi {
namespace {

constexpr std::array<std::pair<std::string_view, WeightFormat>, 7> kNames{{
    {"bf16", WeightFormat::BF16},
    {"fp16", WeightFormat::FP16},
    {"fp8", WeightFormat::FP8},
    {"int8", WeightFormat::INT8},
    {"int4", WeightFormat::INT4},
    {"nvfp4", WeightFormat::NVFP4},
    {"mxfp4", WeightFormat::MXFP4},
}};


// Bytes of one [out, in] matrix.
std::optional<uint64_t> matrix_bytes(uint64_t out, uint64_t in, WeightFormat format) {
  auto elements = checked_mul(out, in);
  if (!elements) return std::nullopt;
  const uint64_t n = *elements;
  switch (format) {
    case WeightFormat::BF16:
    case WeightFormat::FP16: return checked_mul(n, 2);
    case WeightFormat::FP8:  // one byte each, an F32 scale per 128 × 128 block
      return checked_add(n, 4 * ceil_div(out, 128) * ceil_div(in, 128));
    case WeightFormat::INT8:  // one byte each, an F32 scale per output channel
      return checked_add(n, 4 * out);
    case WeightFormat::INT4: {  // two per byte, per group of 128 inputs an FP16 scale and a 4-bit zero point
      auto groups = checked_mul(out, ceil_div(in, 128));  // (out x groups fits: groups <= in)
      return checked_add(ceil_div(n, 2), *groups * 2 + ceil_div(*groups, 2));
    }
    case WeightFormat::NVFP4:  // two per byte, an FP8 scale per 16 values, two F32 scalars per tensor
      return checked_add(n / 2 + n % 2, ceil_div(n, 16) + 8);
    case WeightFormat::MXFP4:  // two per byte, an E8M0 exponent per 32 values
      return checked_add(n / 2 + n % 2, ceil_div(n, 32));
  }
  return std::nullopt;
}

}  // namespace

std::optional<WeightFormat> parse_weight_format(std::string_view name) {
  for (const auto& [text, format] : kNames)
    if (text == name) return format;
  return std::nullopt;
}

const char* weight_format_name(WeightFormat format) {
  for (const auto& [text, f] : kNames)
    if (f == format) return text.data();
  return "bf16";
}

const char* weight_format_layout(WeightFormat format) {
  switch (format) {
    case WeightFormat::BF16: return "2 bytes per weight";
    case WeightFormat::FP16: return "2 bytes per weight";
    case WeightFormat::FP8: return "1 byte per weight and an F32 scale per 128x128 block";
    case WeightFormat::INT8: return "1 byte per weight and an F32 scale per output channel";
    case WeightFormat::INT4: return "4 bits per weight, an FP16 scale and a 4-bit zero point per group of 128";
    case WeightFormat::NVFP4: return "4 bits per weight, an FP8 scale per 16 and two F32 scalars per tensor";
    case WeightFormat::MXFP4: return "4 bits per weight and an 8-bit exponent per 32";
  }
  return "";
}

std::optional<uint64_t> linear_weight_bytes(std::span<const uint64_t> shape, WeightFormat format) {
  if (shape.size() == 2) return matrix_bytes(shape[0], shape[1], format);
  if (shape.size() == 3) {
    auto one = matrix_bytes(shape[1], shape[2], format);
    return one ? checked_mul(*one, shape[0]) : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace hfi
