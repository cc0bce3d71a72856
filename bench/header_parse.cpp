// hfinspect's side of bench/header_parse.sh: reads every `*.safetensors.header.json` of a folder
// into memory (each behind its 8-byte length, as a shard starts), then parses them all, pass after
// pass, as a remote run reads them (parse_safetensors_header with one parser kept from header to
// header), summing the elements of every tensor as the peer sums its parameter counts.
//   header_parse <folder> <passes>
// Prints one JSON line: {"files":..., "tensors":..., "elements":..., "ms":[...]}.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/json_dom.hpp"
#include "formats/safetensors_header.hpp"

namespace {

struct Shard {
  std::string name;
  std::string bytes;
};

// One pass over every shard; false (and a message) when a header does not parse.
bool parse_all(const std::vector<Shard>& shards, hfi::JsonDom& dom, size_t& tensors, uint64_t& elements) {
  tensors = 0;
  elements = 0;
  for (const auto& s : shards) {
    auto h = hfi::parse_safetensors_header({reinterpret_cast<const unsigned char*>(s.bytes.data()), s.bytes.size()}, s.name,
                                           std::nullopt, dom);
    if (!h) {
      std::fprintf(stderr, "header_parse: %s: %s\n", s.name.c_str(), h.error().message.c_str());
      return false;
    }
    tensors += h->tensors.size();
    for (const auto& t : h->tensors) elements += t.elements;
  }
  return true;
}

std::string times_json(const std::vector<double>& ms) {
  std::string out = "[";
  for (size_t i = 0; i < ms.size(); ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%.3f", i ? "," : "", ms[i]);
    out += buf;
  }
  return out + "]";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: header_parse <folder> [passes]\n");
    return 2;
  }
  const int passes = argc > 2 ? std::max(1, std::atoi(argv[2])) : 20;
  std::vector<Shard> shards;
  for (const auto& entry : std::filesystem::directory_iterator(argv[1])) {
    std::string name = entry.path().filename().string();
    if (!name.ends_with(".safetensors.header.json")) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string bytes(8, '\0');
    for (int k = 0; k < 8; ++k) bytes[k] = static_cast<char>((static_cast<uint64_t>(json.size()) >> (8 * k)) & 0xff);
    shards.push_back({name, bytes + json});
  }
  std::sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) { return a.name < b.name; });
  if (shards.empty()) {
    std::fprintf(stderr, "header_parse: no *.safetensors.header.json in %s\n", argv[1]);
    return 1;
  }
  size_t tensors = 0;
  uint64_t elements = 0;
  std::vector<double> ms;
  hfi::JsonDom dom;
  for (int pass = 0; pass < passes; ++pass) {
    auto t0 = std::chrono::steady_clock::now();
    if (!parse_all(shards, dom, tensors, elements)) return 1;
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::printf("{\"files\":%zu,\"tensors\":%zu,\"elements\":%llu,\"ms\":%s}\n", shards.size(), tensors,
              static_cast<unsigned long long>(elements), times_json(ms).c_str());
  return 0;
}
