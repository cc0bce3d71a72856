// libFuzzer target: the sizes, token counts and fractions the command line takes (--gpu-mem,
// --reserve, --ctx, --utilization). Each gives an exact value or none; a value read back from
// its own decimal spelling is the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "analysis/fit.hpp"
#include "core/quantity.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto bytes = hfi::parse_byte_size(text))
    if (hfi::parse_byte_size(std::to_string(*bytes)) != *bytes) std::abort();
  if (auto tokens = hfi::parse_token_count(text))
    if (hfi::parse_token_count(std::to_string(*tokens)) != *tokens) std::abort();
  if (auto f = hfi::parse_fraction(std::string(text)))
    if (f->numerator == 0 || f->numerator > f->denominator) std::abort();
  return 0;
}
