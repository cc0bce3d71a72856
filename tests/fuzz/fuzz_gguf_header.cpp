// libFuzzer target: a GGUF file's header. Besides not crashing, a prefix of the input must agree
// with the whole: the same header, the same fault, or a request for more bytes than it holds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "formats/gguf_header.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const unsigned char> whole(data, size);
  auto full = hfi::parse_gguf_header(whole, "fuzz.gguf", size);
  auto half = hfi::parse_gguf_header(whole.first(size / 2), "fuzz.gguf", size);
  if (!half.ok()) {
    // A fault seen in half the bytes is seen in all of them.
    if (full.ok() || full.error().field != half.error().field) std::abort();
  } else if (const auto* more = std::get_if<hfi::GgufNeedMore>(&*half)) {
    if (more->bytes <= size / 2) std::abort();
  } else if (!full.ok() || std::get<hfi::GgufHeader>(*full).tensors.size() != std::get<hfi::GgufHeader>(*half).tensors.size()) {
    std::abort();
  }
  if (full.ok() && std::holds_alternative<hfi::GgufNeedMore>(*full)) std::abort();  // the whole file leaves nothing to ask for
  return 0;
}
