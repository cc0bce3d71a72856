#include "source/local_source.hpp"

#include <algorithm>
#include <fstream>
#include <system_error>

namespace hfi {

namespace fs = std::filesystem;

namespace {
// A model repository is shallow; bound the walk so a wrong path (say, $HOME) cannot take forever.
constexpr int kMaxDepth = 3;
constexpr size_t kMaxEntries = 100'000;
}  // namespace

const char* source_kind_name(SourceKind kind) {
  switch (kind) {
    case SourceKind::Local: return "local";
    case SourceKind::HfCache: return "hf-cache";
    case SourceKind::Hub: return "hub";
    case SourceKind::BundledReference: return "bundled reference";
  }
  return "local";
}

LocalSource::LocalSource(fs::path root, SourceKind kind, std::string commit)
    : root_(std::move(root)), kind_(kind), commit_(std::move(commit)) {}

Result<std::vector<FileEntry>> LocalSource::list_files() {
  std::error_code ec;
  if (!fs::is_directory(root_, ec))
    return not_found(root_.string(), "is not a directory", "give a directory holding config.json and .safetensors files");
  std::vector<FileEntry> out;
  fs::recursive_directory_iterator it(root_, fs::directory_options::follow_directory_symlink, ec), end;
  if (ec) return not_found(root_.string(), "cannot be read: " + ec.message());
  size_t seen = 0;
  for (; it != end; it.increment(ec)) {
    if (ec) return not_found(root_.string(), "cannot be read: " + ec.message());
    if (++seen > kMaxEntries) break;
    const fs::path& p = it->path();
    std::string name = p.filename().string();
    if (!name.empty() && name.front() == '.') {  // .cache, .git, .no_exist: never model files
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_directory(ec)) {
      if (it.depth() + 1 >= kMaxDepth) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec)) continue;  // follows symlinks: cache snapshots point into blobs/
    uint64_t size = it->file_size(ec);
    if (ec) continue;
    out.push_back({fs::relative(p, root_, ec).generic_string(), size});
  }
  std::sort(out.begin(), out.end(), [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
  return out;
}

Result<std::optional<std::string>> LocalSource::read_file(const std::string& path, uint64_t max_bytes) {
  fs::path p = root_ / path;
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::optional<std::string>{};
  uint64_t size = fs::file_size(p, ec);
  if (ec) return not_found(p.string(), "cannot be read: " + ec.message());
  if (size > max_bytes)
    return malformed(path, "", "is " + std::to_string(size) + " bytes, over the limit of " + std::to_string(max_bytes));
  std::ifstream in(p, std::ios::binary);
  std::string data(static_cast<size_t>(size), '\0');
  if (!in.read(data.data(), static_cast<std::streamsize>(size)))
    return not_found(p.string(), "cannot be read");
  return std::optional<std::string>(std::move(data));
}

std::vector<Result<std::string>> LocalSource::read_ranges(const std::vector<RangeRequest>& requests) {
  std::vector<Result<std::string>> out;
  out.reserve(requests.size());
  for (const auto& r : requests) {
    fs::path p = root_ / r.path;
    std::error_code ec;
    uint64_t size = fs::file_size(p, ec);
    if (ec) {
      out.emplace_back(not_found(r.path, "cannot be read: " + ec.message()));
      continue;
    }
    uint64_t length = r.offset >= size ? 0 : std::min(r.length, size - r.offset);
    std::ifstream in(p, std::ios::binary);
    std::string data(static_cast<size_t>(length), '\0');
    in.seekg(static_cast<std::streamoff>(r.offset));
    if (length > 0 && !in.read(data.data(), static_cast<std::streamsize>(length))) {
      out.emplace_back(not_found(r.path, "cannot be read"));
      continue;
    }
    out.emplace_back(std::move(data));
  }
  return out;
}

}  // namespace hfi
