#include "source/header_pack.hpp"

#include <sstream>
#include <system_error>

#include "formats/safetensors_header.hpp"
#include "source/hub_cache.hpp"

namespace hfi {
namespace {

namespace fs = std::filesystem;

// More records than any repository has shards: a pack claiming more is damaged, not a reason to
// grow a map without end.
constexpr size_t kMostRecords = 1'000'000;
constexpr uint64_t kLongestPath = 4096;

uint64_t fnv1a(std::string_view a, std::string_view b) {
  uint64_t h = 1469598103934665603ull;
  for (std::string_view part : {a, b})
    for (unsigned char c : part) h = (h ^ c) * 1099511628211ull;
  return h;
}

void append_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

bool read_le(std::istream& in, int bytes, uint64_t& v) {
  unsigned char buf[8];
  if (!in.read(reinterpret_cast<char*>(buf), bytes)) return false;
  v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(buf[i]) << (8 * i);
  return true;
}

}  // namespace

std::string pack_record_head(std::string_view path, uint64_t byte_count) {
  std::string out;
  append_le(out, path.size(), 4);
  out += path;
  append_le(out, byte_count, 8);
  return out;
}

std::string pack_record_tail(std::string_view path, std::string_view bytes) {
  std::string out;
  append_le(out, fnv1a(path, bytes), 8);
  return out;
}

HeaderPackReader::HeaderPackReader(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return;
  const uint64_t size = fs::file_size(file, ec);
  if (ec) return;
  open(std::make_unique<std::ifstream>(file, std::ios::binary), size);
}

HeaderPackReader HeaderPackReader::from_bytes(std::string bytes) {
  HeaderPackReader reader;
  const uint64_t size = bytes.size();
  reader.open(std::make_unique<std::istringstream>(std::move(bytes), std::ios::binary), size);
  return reader;
}

void HeaderPackReader::open(std::unique_ptr<std::istream> in, uint64_t size) {
  in_ = std::move(in);
  file_size_ = size;
  if (!walk()) {
    damaged_ = true;
    entries_.clear();
  }
}

bool HeaderPackReader::walk() {
  std::string magic(kHeaderPackMagic.size(), '\0');
  if (!in_->read(magic.data(), static_cast<std::streamsize>(magic.size())) || magic != kHeaderPackMagic) return false;
  uint64_t at = magic.size();
  while (at < file_size_) {
    uint64_t path_length = 0, length = 0, checksum = 0;
    if (!read_le(*in_, 4, path_length) || path_length > kLongestPath) return false;
    std::string path(static_cast<size_t>(path_length), '\0');
    if (!in_->read(path.data(), static_cast<std::streamsize>(path_length)) || !read_le(*in_, 8, length)) return false;
    at += 4 + path_length + 8;
    // The bytes and the checksum after them must lie inside the file; a header is 8 + N bytes.
    if (length > 8 + kMaxSafetensorsHeader || file_size_ - at < 8 || length > file_size_ - at - 8) return false;
    const uint64_t offset = at;
    if (!in_->seekg(static_cast<std::streamoff>(length), std::ios::cur) || !read_le(*in_, 8, checksum)) return false;
    at += length + 8;
    if (!safe_repo_path(path) || entries_.size() == kMostRecords) return false;
    entries_[path] = {offset, length, checksum};
  }
  return true;
}

HeaderPackReader::Lookup HeaderPackReader::read(const std::string& path, std::string& bytes) {
  auto it = entries_.find(path);
  if (it == entries_.end()) return Lookup::Absent;
  bytes.assign(static_cast<size_t>(it->second.length), '\0');
  in_->clear();
  if (!in_->seekg(static_cast<std::streamoff>(it->second.offset)) || !in_->read(bytes.data(), static_cast<std::streamsize>(bytes.size())) ||
      fnv1a(path, bytes) != it->second.checksum) {
    bytes.clear();
    return Lookup::Damaged;
  }
  return Lookup::Found;
}

}  // namespace hfi
