// libFuzzer target: arbitrary bytes as the start of a .safetensors file, with and without a size.
// Besides not crashing, a parser kept from input to input (as a run keeps one from header to
// header) must give exactly what a fresh one gives.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "core/json_dom.hpp"
#include "formats/safetensors_header.hpp"
#include "support/parse_summary.hpp"

namespace {

void fresh_and_kept(std::span<const unsigned char> bytes, std::optional<uint64_t> file_size, hfi::JsonDom& kept) {
  auto fresh = hfi::parse_safetensors_header(bytes, "fuzz.safetensors", file_size);
  auto again = hfi::parse_safetensors_header(bytes, "fuzz.safetensors", file_size, kept);
  if (hfi::testing::summary(fresh) != hfi::testing::summary(again)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static hfi::JsonDom kept;  // the fuzzer's own state across inputs, as a run's across headers
  std::span<const unsigned char> bytes(data, size);
  fresh_and_kept(bytes, std::nullopt, kept);
  if (size > 0) fresh_and_kept(bytes, uint64_t{data[0]} * 997 + size, kept);
  return 0;
}
