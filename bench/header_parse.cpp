// hfinspect's side of bench/header_parse.sh: reads every `*.safetensors.header.json` of a folder
// into memory (each behind its 8-byte length, as a shard starts), then parses them all, pass after
// pass, with the reader a remote run uses (parse_safetensors_header: the plain-JSON cursor, falling
// back to simdjson's DOM) and with the DOM reader alone (parse_safetensors_header_fully), summing
// the elements of every tensor as the peer sums its parameter counts.
//   header_parse <folder> <passes>
// Prints one JSON line: {"files":..., "tensors":..., "elements":..., "cursor_ms":[...], "dom_ms":[...]}.
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

#include "formats/safetensors_header.hpp"

namespace {

using Parser = hfi::Result<hfi::SafetensorsHeader> (*)(std::span<const unsigned char>, std::string_view, std::optional<uint64_t>);

struct Shard {
  std::string name;
  std::string bytes;
};

// One pass over every shard; false (and a message) when a header does not parse.
bool parse_all(const std::vector<Shard>& shards, Parser parse, size_t& tensors, uint64_t& elements) {
  tensors = 0;
  elements = 0;
  for (const auto& s : shards) {
    auto h = parse({reinterpret_cast<const unsigned char*>(s.bytes.data()), s.bytes.size()}, s.name, std::nullopt);
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
  size_t tensors = 0, dom_tensors = 0;
  uint64_t elements = 0, dom_elements = 0;
  std::vector<double> cursor_ms, dom_ms;
  for (int pass = 0; pass < passes; ++pass) {
    // The two readers alternate, so that a slow moment of the machine falls on both.
    auto t0 = std::chrono::steady_clock::now();
    if (!parse_all(shards, hfi::parse_safetensors_header, tensors, elements)) return 1;
    auto t1 = std::chrono::steady_clock::now();
    if (!parse_all(shards, hfi::parse_safetensors_header_fully, dom_tensors, dom_elements)) return 1;
    auto t2 = std::chrono::steady_clock::now();
    cursor_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    dom_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
  }
  if (tensors != dom_tensors || elements != dom_elements) {
    std::fprintf(stderr, "header_parse: the two readers disagree (%zu/%zu tensors)\n", tensors, dom_tensors);
    return 1;
  }
  std::printf("{\"files\":%zu,\"tensors\":%zu,\"elements\":%llu,\"cursor_ms\":%s,\"dom_ms\":%s}\n", shards.size(), tensors,
              static_cast<unsigned long long>(elements), times_json(cursor_ms).c_str(), times_json(dom_ms).c_str());
  return 0;
}
