#include "formats/dtype.hpp"

#include <array>

namespace hfi {
namespace {

struct DtypeInfo {
  Dtype dtype;
  std::string_view name;
  uint32_t bits;
  bool is_float;
};

// Names and widths follow the safetensors crate's Dtype enum (bitsize()).
constexpr std::array<DtypeInfo, 22> kDtypes{{
    {Dtype::BOOL, "BOOL", 8, false},        {Dtype::U8, "U8", 8, false},
    {Dtype::I8, "I8", 8, false},            {Dtype::I16, "I16", 16, false},
    {Dtype::U16, "U16", 16, false},         {Dtype::F16, "F16", 16, true},
    {Dtype::BF16, "BF16", 16, true},        {Dtype::I32, "I32", 32, false},
    {Dtype::U32, "U32", 32, false},         {Dtype::F32, "F32", 32, true},
    {Dtype::I64, "I64", 64, false},         {Dtype::U64, "U64", 64, false},
    {Dtype::F64, "F64", 64, true},          {Dtype::F8_E5M2, "F8_E5M2", 8, true},
    {Dtype::F8_E4M3, "F8_E4M3", 8, true},   {Dtype::F8_E4M3FNUZ, "F8_E4M3FNUZ", 8, true},
    {Dtype::F8_E5M2FNUZ, "F8_E5M2FNUZ", 8, true}, {Dtype::F8_E8M0, "F8_E8M0", 8, true},
    {Dtype::F4, "F4", 4, true},             {Dtype::F6_E2M3, "F6_E2M3", 6, true},
    {Dtype::F6_E3M2, "F6_E3M2", 6, true},   {Dtype::C64, "C64", 64, true},
}};

// The table follows the enum, so a dtype's entry is found by position (asked 100k times and more
// for a large MoE).
constexpr bool in_enum_order() {
  for (size_t k = 0; k < kDtypes.size(); ++k)
    if (static_cast<size_t>(kDtypes[k].dtype) != k) return false;
  return true;
}
static_assert(in_enum_order());

const DtypeInfo& info(Dtype d) {
  auto k = static_cast<size_t>(d);
  return k < kDtypes.size() ? kDtypes[k] : kDtypes[0];
}

}  // namespace

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (const auto& d : kDtypes)
    if (d.name == name) return d.dtype;
  return std::nullopt;
}

std::string_view dtype_name(Dtype d) { return info(d).name; }
uint32_t dtype_bits(Dtype d) { return info(d).bits; }
bool dtype_is_float(Dtype d) { return info(d).is_float; }

bool dtype_is_fp8(Dtype d) {
  return d == Dtype::F8_E4M3 || d == Dtype::F8_E5M2 || d == Dtype::F8_E4M3FNUZ || d == Dtype::F8_E5M2FNUZ;
}

}  // namespace hfi
