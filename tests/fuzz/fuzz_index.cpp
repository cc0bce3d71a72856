// libFuzzer target: model.safetensors.index.json.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/safetensors_index.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)hfi::parse_safetensors_index(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.index.json");
  return 0;
}
