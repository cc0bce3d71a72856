// libFuzzer target: arbitrary bytes as the start of a .safetensors file, with and without a size.
// Besides not crashing, the cursor path must give exactly what the full parser gives.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "formats/safetensors_header.hpp"
#include "support/parse_summary.hpp"

namespace {

void both_ways(std::span<const unsigned char> bytes, std::optional<uint64_t> file_size) {
  auto fast = hfi::parse_safetensors_header(bytes, "fuzz.safetensors", file_size);
  auto full = hfi::parse_safetensors_header_fully(bytes, "fuzz.safetensors", file_size);
  if (hfi::testing::summary(fast) != hfi::testing::summary(full)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const unsigned char> bytes(data, size);
  both_ways(bytes, std::nullopt);
  if (size > 0) both_ways(bytes, uint64_t{data[0]} * 997 + size);
  return 0;
}
