// libFuzzer target: the cache's headers.pack. Besides not crashing, every record it lists reads
// back as found or damaged, never past the bytes it was given; and a pack written from what
// was found reads back the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "source/header_pack.hpp"

namespace {

// The paths a pack made of these bytes could name: the fuzzer finds them in the framing.
std::string path_at(const uint8_t* data, size_t size, size_t at) {
  if (size < at + 4) return {};
  const size_t n = data[at] | data[at + 1] << 8;
  return size < at + 4 + n ? std::string() : std::string(reinterpret_cast<const char*>(data + at + 4), n);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto reader = hfi::HeaderPackReader::from_bytes(std::string(reinterpret_cast<const char*>(data), size));
  const size_t first = hfi::kHeaderPackMagic.size();
  for (const std::string& path : {path_at(data, size, first), std::string("model.safetensors")}) {
    std::string bytes;
    if (reader.read(path, bytes) == hfi::HeaderPackReader::Lookup::Found) {
      if (bytes.size() > size) std::abort();
      std::string pack(hfi::kHeaderPackMagic);
      pack += hfi::pack_record_head(path, bytes.size()) + bytes + hfi::pack_record_tail(path, bytes);
      auto again = hfi::HeaderPackReader::from_bytes(pack);
      std::string back;
      if (again.damaged() || again.read(path, back) != hfi::HeaderPackReader::Lookup::Found || back != bytes) std::abort();
    }
  }
  return 0;
}
