#include "support/fixture_repo.hpp"

#include "support/gguf_writer.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace hfi::testing {

namespace fs = std::filesystem;

uint64_t max_data_offset(const std::string& text) {
  // Deliberately independent of the parser under test: a plain scan for "data_offsets":[a,b].
  static const std::string key = "\"data_offsets\":[";
  uint64_t best = 0;
  for (size_t pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos + 1)) {
    size_t comma = text.find(',', pos);
    size_t close = text.find(']', pos);
    if (comma == std::string::npos || close == std::string::npos) throw std::runtime_error("bad fixture header");
    best = std::max<uint64_t>(best, std::stoull(text.substr(comma + 1, close - comma - 1)));
  }
  return best;
}

std::string padded_safetensors_prefix(std::string header) {
  while (header.size() % 8 != 0) header += ' ';
  uint64_t n = header.size();
  std::string out;
  out.reserve(8 + header.size());
  for (int i = 0; i < 8; ++i) out += static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header;
}

void write_sparse_safetensors(const fs::path& file, std::string header, uint64_t data_bytes) {
  std::string prefix = padded_safetensors_prefix(std::move(header));
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << prefix;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + file.string());
  fs::resize_file(file, prefix.size() + data_bytes);  // extends with a hole: no disk blocks for the data
}

std::string gguf_prefix_from_dump(const std::string& dump, uint64_t& data_bytes) {
  return gguf_from_loader_dump(dump).header(data_bytes);
}

size_t materialize_fixture(const fs::path& fixture, const fs::path& destination) {
  fs::create_directories(destination);
  size_t shards = 0;
  const std::string suffix = ".header.json";
  // Subfolders too: a pipeline keeps each component in one (unet/, 2_Dense/).
  for (const auto& entry : fs::recursive_directory_iterator(fixture)) {
    if (!entry.is_regular_file()) continue;
    const fs::path rel = fs::relative(entry.path(), fixture);
    const fs::path dir = destination / rel.parent_path();
    fs::create_directories(dir);
    std::string name = entry.path().filename().string();
    if (name.ends_with(kGgufDumpSuffix)) {
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      uint64_t data_bytes = 0;
      const std::string prefix = gguf_prefix_from_dump(ss.str(), data_bytes);
      const fs::path file = dir / name.substr(0, name.size() - std::string(".loader.txt").size());
      std::ofstream out(file, std::ios::binary | std::ios::trunc);
      out << prefix;
      out.close();
      if (!out) throw std::runtime_error("cannot write " + file.string());
      fs::resize_file(file, prefix.size() + data_bytes);
      ++shards;
    } else if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      std::string header = ss.str();
      write_sparse_safetensors(dir / name.substr(0, name.size() - suffix.size()), header, max_data_offset(header));
      ++shards;
    } else {
      fs::copy_file(entry.path(), dir / name, fs::copy_options::overwrite_existing);
    }
  }
  return shards;
}

fs::path fixtures_dir() { return fs::path(HFINSPECT_FIXTURES_DIR); }

}  // namespace hfi::testing

namespace hfi::testing {
std::filesystem::path materialized(const std::string& repo) {
  static std::map<std::string, std::filesystem::path> done;
  if (auto it = done.find(repo); it != done.end()) return it->second;
  auto out = std::filesystem::path(HFINSPECT_TEST_WORK_DIR) / "fixtures" / repo;
  std::filesystem::remove_all(out);
  materialize_fixture(fixtures_dir() / repo, out);
  done[repo] = out;
  return out;
}
std::filesystem::path fresh_work_dir(const std::string& name) {
  std::filesystem::path dir = std::filesystem::path(HFINSPECT_TEST_WORK_DIR) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace hfi::testing
