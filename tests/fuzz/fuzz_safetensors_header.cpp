// libFuzzer target: arbitrary bytes as the start of a .safetensors file, with and without a size.
#include <cstddef>
#include <cstdint>

#include "formats/safetensors_header.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const unsigned char> bytes(data, size);
  (void)hfi::parse_safetensors_header(bytes, "fuzz.safetensors");
  if (size > 0) (void)hfi::parse_safetensors_header(bytes, "fuzz.safetensors", uint64_t{data[0]} * 997 + size);
  return 0;
}
