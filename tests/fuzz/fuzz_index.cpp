// libFuzzer target: model.safetensors.index.json. Besides not crashing, the cursor path must give
// exactly what the full parser gives, value or error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "formats/safetensors_index.hpp"
#include "support/parse_summary.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto fast = hfi::parse_safetensors_index(text, "fuzz.index.json");
  auto full = hfi::parse_safetensors_index_fully(text, "fuzz.index.json");
  if (hfi::testing::summary(fast) != hfi::testing::summary(full)) std::abort();
  return 0;
}
