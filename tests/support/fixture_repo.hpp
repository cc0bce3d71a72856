// Turns a fixture folder (metadata files + one <shard>.header.json per shard) into a directory
// that looks like a real download: every shard becomes a sparse .safetensors file with the
// 8-byte length, the header padded to 8 bytes as writers do, and a hole as long as its data.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace hfi::testing {

// Copies `fixture` into `destination` (created if needed) and returns the number of shards made.
// Throws std::runtime_error on I/O problems: this is test scaffolding, not product code.
size_t materialize_fixture(const std::filesystem::path& fixture, const std::filesystem::path& destination);

// The first bytes of a safetensors file as writers lay it out: the 8-byte little-endian length N,
// then the header JSON padded with spaces so that N is a multiple of 8. The data follows.
std::string padded_safetensors_prefix(std::string header_json);

// X.gguf.loader.txt holds the llama_model_loader dump of a published X.gguf; it becomes a sparse
// X.gguf whose header the dump rebuilds (support/gguf_writer.hpp) and whose data is a hole.
inline constexpr const char* kGgufDumpSuffix = ".gguf.loader.txt";
// The header bytes of such a file (through the padding before the data), and its data's length.
std::string gguf_prefix_from_dump(const std::string& dump, uint64_t& data_bytes);

// Writes one safetensors file from header JSON text; data is a hole of `data_bytes`.
void write_sparse_safetensors(const std::filesystem::path& file, std::string header_json, uint64_t data_bytes);

// The largest end offset named in a header's data_offsets, found by scanning the text.
uint64_t max_data_offset(const std::string& header_json);

// Root of the repository's fixtures/ folder (set by CMake).
std::filesystem::path fixtures_dir();

}  // namespace hfi::testing

namespace hfi::testing {
// A materialized copy of fixtures/<repo> under the build tree, made once per test run.
std::filesystem::path materialized(const std::string& repo);
// An empty folder <test work dir>/<name>, emptied first if an earlier run left it.
std::filesystem::path fresh_work_dir(const std::string& name);
}  // namespace hfi::testing
