#include "source/local_source.hpp"

#include <algorithm>
#include <fstream>
#include <system_error>

namespace hfi {

namespace fs = std::filesystem;

namespace {
bool is_inside(const fs::path& path, const fs::path& dir) {
  if (dir.empty()) return false;
  auto rel = path.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != ".." && rel.is_relative();
}

// The folders a symlink may lead into: the folder given, and for a Hugging Face cache snapshot
// (models--org--name/snapshots/<sha>) the blobs/ folder its files point into.
std::vector<fs::path> symlink_targets_allowed(const fs::path& root) {
  std::error_code ec;
  fs::path real = fs::canonical(root, ec);
  if (ec) return {};
  std::vector<fs::path> out{real};
  fs::path snapshots = real.parent_path();
  if (snapshots.filename() == "snapshots") {
    fs::path blobs = fs::canonical(snapshots.parent_path() / "blobs", ec);
    if (!ec) out.push_back(blobs);
  }
  return out;
}
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

LocalSource::LocalSource(fs::path root, SourceKind kind, std::string commit, ListingLimits limits)
    : root_(std::move(root)), kind_(kind), commit_(std::move(commit)), allowed_(symlink_targets_allowed(root_)), limits_(limits) {}

// A file of the folder, or a symlink to one inside the folder or the cache's blobs/; checked when
// it is read. Directory symlinks are never entered: a `loop -> .` would list every file again
// under a new name.
Status LocalSource::check_readable(const fs::path& p) const {
  std::error_code ec;
  if (!fs::is_symlink(p, ec)) return Ok{};
  fs::path target = fs::canonical(p, ec);
  if (ec) return not_found(p.string(), "is a symlink whose target cannot be read: " + ec.message());
  for (const auto& dir : allowed_)
    if (is_inside(target, dir)) return Ok{};
  return Error{ErrorKind::Usage, p.string(), "",
               "is a symlink to " + target.string() + ", outside the folder given and outside a Hugging Face cache's blobs/",
               "copy the file into the folder, or give the folder it lives in"};
}

Result<std::vector<FileEntry>> LocalSource::list_files() {
  std::error_code ec;
  if (!fs::is_directory(root_, ec))
    return not_found(root_.string(), "is not a directory", "give a directory holding config.json and .safetensors files");
  std::vector<FileEntry> out;
  fs::recursive_directory_iterator it(root_, ec), end;
  if (ec) return not_found(root_.string(), "cannot be read: " + ec.message());
  size_t seen = 0;
  for (; it != end; it.increment(ec)) {
    if (ec) return not_found(root_.string(), "cannot be read: " + ec.message());
    if (++seen > limits_.max_entries)
      return Error{ErrorKind::Usage, root_.string(), "",
                   "holds more than " + std::to_string(limits_.max_entries) + " files and folders within " +
                       std::to_string(limits_.max_depth) + " levels, more than any model repository",
                   "give the folder that holds the model's config.json"};
    const fs::path& p = it->path();
    std::string name = p.filename().string();
    if (!name.empty() && name.front() == '.') {  // .cache, .git, .no_exist: never model files
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink(ec) && it->is_directory(ec)) continue;  // not entered (see check_readable)
    if (it->is_directory(ec)) {
      if (it.depth() + 1 >= limits_.max_depth) it.disable_recursion_pending();
      continue;
    }
    // Follows a file symlink (cache snapshots point into blobs/); reading it checks where it leads.
    if (!it->is_regular_file(ec)) continue;
    uint64_t size = it->file_size(ec);
    if (ec) continue;
    // The name in the folder, not the target's: a snapshot's files are symlinks to ../../blobs/<hash>.
    out.push_back({p.lexically_relative(root_).generic_string(), size});
  }
  std::sort(out.begin(), out.end(), [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
  return out;
}

Result<std::optional<std::string>> LocalSource::read_file(const std::string& path, uint64_t max_bytes) {
  fs::path p = root_ / path;
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::optional<std::string>{};
  if (auto readable = check_readable(p); !readable) return readable.error();
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
    if (auto readable = check_readable(p); !readable) {
      out.emplace_back(readable.error());
      continue;
    }
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
