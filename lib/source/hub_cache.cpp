#include "source/hub_cache.hpp"

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <system_error>

#include "core/json.hpp"
#include "source/blob_id.hpp"
#include "source/header_pack.hpp"
#include "source/hf_cache.hpp"

namespace hfi {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxListingBytes = 64u << 20;

std::string random_suffix() {
  constexpr const char* hex = "0123456789abcdef";
  std::string out;
  std::random_device entropy;  // one suffix per cache write: no generator worth keeping between them
  uint64_t v = (uint64_t{entropy()} << 32) | entropy();
  for (int i = 0; i < 8; ++i) out += hex[(v >> (4 * i)) & 15];
  return out;
}

// <target>.<8 hex>.incomplete, the form huggingface_hub uses for files in flight.
fs::path temporary_name(const fs::path& target) {
  std::string name = target.filename().string();
  name.append(".").append(random_suffix()).append(".incomplete");
  return target.parent_path() / name;
}

// Writes `parts`, one after the other, to `target` through a temporary sibling and a rename.
bool write_atomically(const fs::path& target, const std::vector<std::string_view>& parts) {
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) return false;
  fs::path tmp = temporary_name(target);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    for (std::string_view part : parts) out.write(part.data(), static_cast<std::streamsize>(part.size()));
    out.close();  // the last buffer is written here: a full disk shows now, not after the rename
    if (!out) {
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) fs::remove(tmp, ec);
  return !ec;
}

bool write_atomically(const fs::path& target, std::string_view bytes) { return write_atomically(target, std::vector<std::string_view>{bytes}); }

std::optional<std::string> read_small(const fs::path& file, uint64_t cap) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  auto size = fs::file_size(file, ec);
  if (ec || size > cap) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  std::string data(static_cast<size_t>(size), '\0');
  if (!in.read(data.data(), static_cast<std::streamsize>(size))) return std::nullopt;
  return data;
}

bool hex_name(const std::string& s);

// A snapshot file that links to blobs/<etag> (as huggingface_hub and hfinspect write it) must hash
// to that ETag; a file of another form (a plain copy, a blob with another name) is taken as it is.
bool blob_intact(const fs::path& link, std::string_view bytes) {
  std::error_code ec;
  if (!fs::is_symlink(link, ec)) return true;
  fs::path target = fs::read_symlink(link, ec);
  if (ec || target.parent_path().filename() != "blobs" || !hex_name(target.filename().string())) return true;
  return bytes_match_etag(bytes, target.filename().string());
}

bool hex_name(const std::string& s) {
  if (s.size() != 40 && s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool safe_revision(const std::string& revision) {
  return !revision.empty() && revision.size() <= 256 && safe_repo_path(revision);
}

}  // namespace


HubCache::HubCache(fs::path cache_dir, const std::string& repo_id) : repo_dir_(std::move(cache_dir) / repo_folder_name(repo_id)) {}

fs::path HubCache::snapshot_dir(const std::string& commit) const { return repo_dir_ / "snapshots" / commit; }

bool HubCache::holds_complete_read(const std::string& commit) const {
  if (!is_commit_sha(commit)) return false;
  std::error_code ec;
  const fs::path own = own_dir(commit);
  // Earlier versions kept one file per shard under headers/ instead of the pack.
  return fs::is_regular_file(own / "files.json", ec) &&
         (fs::is_regular_file(own / "headers.pack", ec) || fs::is_directory(own / "headers", ec));
}
fs::path HubCache::own_dir(const std::string& commit) const { return repo_dir_ / "hfinspect" / commit; }

std::optional<std::string> HubCache::read_ref(const std::string& revision) const {
  if (!safe_revision(revision)) return std::nullopt;
  auto text = read_small(repo_dir_ / "refs" / revision, 4096);
  if (!text) return std::nullopt;
  std::string commit;
  for (char c : *text)
    if (!std::isspace(static_cast<unsigned char>(c))) commit += c;
  if (!is_commit_sha(commit)) return std::nullopt;
  return commit;
}

bool HubCache::store_ref(const std::string& revision, const std::string& commit) {
  if (!safe_revision(revision) || !is_commit_sha(commit) || revision == commit) return false;
  return write_atomically(repo_dir_ / "refs" / revision, commit);
}

bool HubCache::store_file(const std::string& commit, const std::string& path, const std::string& etag, const std::string& bytes) {
  if (!is_commit_sha(commit) || !safe_repo_path(path) || !hex_name(etag)) return false;
  fs::path blob = repo_dir_ / "blobs" / etag;
  std::error_code ec;
  // A blob already there is kept only when it still holds what its name says (a cut-short or
  // damaged one would otherwise outlive every fetch).
  const auto kept = fs::exists(blob, ec) ? read_small(blob, bytes.size()) : std::nullopt;
  const bool intact = kept && *kept == bytes;
  if (!intact && !write_atomically(blob, bytes)) return false;
  fs::path link = snapshot_dir(commit) / path;
  fs::create_directories(link.parent_path(), ec);
  if (ec) return false;
  // ../../blobs/<etag> from snapshots/<commit>/, one more ../ per folder level inside the repo.
  fs::path target = fs::path("..") / "..";
  for (auto depth = std::count(path.begin(), path.end(), '/'); depth > 0; --depth) target /= "..";
  target = target / "blobs" / etag;
  fs::path tmp = temporary_name(link);
  fs::create_symlink(target, tmp, ec);
  if (ec) {
    // No symlinks here (some filesystems): a plain copy is what huggingface_hub does then.
    return write_atomically(link, bytes);
  }
  fs::rename(tmp, link, ec);
  if (ec) fs::remove(tmp, ec);
  return !ec;
}

bool HubCache::store_missing(const std::string& commit, const std::string& path) {
  if (!is_commit_sha(commit) || !safe_repo_path(path)) return false;
  return write_atomically(repo_dir_ / ".no_exist" / commit / path, "");
}

bool HubCache::store_listing(const std::string& commit, const std::vector<FileEntry>& files) {
  if (!is_commit_sha(commit)) return false;
  std::vector<Json> items;
  for (const auto& f : files)
    items.push_back(Json::make_object({{"path", Json::make_string(f.path)}, {"size", Json::make_uint(f.size)}}));
  Json doc = Json::make_object({{"format_version", Json::make_int(1)}, {"files", Json::make_array(std::move(items))}});
  return write_atomically(own_dir(commit) / "files.json", doc.dump());
}

HeaderPackWriter::HeaderPackWriter(const HubCache& cache, const std::string& commit) {
  if (!is_commit_sha(commit)) return;
  target_ = cache.own_dir(commit) / "headers.pack";
  std::error_code ec;
  fs::create_directories(target_.parent_path(), ec);
  if (ec) return;
  temporary_ = temporary_name(target_);
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  out_.write(kHeaderPackMagic.data(), static_cast<std::streamsize>(kHeaderPackMagic.size()));
  ok_ = static_cast<bool>(out_);
}

HeaderPackWriter::~HeaderPackWriter() {
  if (committed_ || temporary_.empty()) return;
  out_.close();
  std::error_code ec;
  fs::remove(temporary_, ec);
}

bool HeaderPackWriter::add(const std::string& path, std::string_view bytes) {
  if (!ok_) return false;
  if (!safe_repo_path(path)) return ok_ = false;
  const std::string head = pack_record_head(path, bytes.size()), tail = pack_record_tail(path, bytes);
  out_.write(head.data(), static_cast<std::streamsize>(head.size()));
  out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out_.write(tail.data(), static_cast<std::streamsize>(tail.size()));
  return ok_ = static_cast<bool>(out_);
}

bool HeaderPackWriter::commit() {
  if (!ok_ || committed_) return false;
  out_.close();  // the last buffer is written here: a full disk shows now, not after the rename
  std::error_code ec;
  if (out_) fs::rename(temporary_, target_, ec);
  if (!out_ || ec) {
    fs::remove(temporary_, ec);
    return ok_ = false;
  }
  return committed_ = true;
}

bool HubCache::store_header_pack(const std::string& commit, const std::map<std::string, std::string>& headers) {
  HeaderPackWriter pack(*this, commit);
  for (const auto& [path, bytes] : headers)
    if (!pack.add(path, bytes)) return false;
  return pack.commit();
}

namespace {

// Earlier versions: one file per shard under headers/.
std::optional<std::string> read_header_file(const fs::path& own, const std::string& path) {
  return read_small(own / "headers" / path, uint64_t{200} << 20);
}

}  // namespace

CachedSource::CachedSource(const HubCache& cache, std::string repo_id, std::string commit, Listing listing)
    : repo_dir_(cache.repo_dir()),
      snapshot_(cache.snapshot_dir(commit)),
      own_(cache.own_dir(commit)),
      repo_id_(std::move(repo_id)),
      commit_(std::move(commit)),
      snapshot_files_(snapshot_, SourceKind::HfCache, commit_),
      listing_kind_(listing) {}

CachedSource::CachedSource(const HubCache& cache, std::string repo_id, std::string commit, std::vector<FileEntry> listing)
    : CachedSource(cache, std::move(repo_id), std::move(commit)) {
  listing_ = std::move(listing);
}

std::string CachedSource::location() const { return snapshot_.string(); }

Error CachedSource::miss(const std::string& path, const std::string& what) {
  misses_.push_back(path);
  return not_found(path, what + " of " + repo_id_ + " at " + commit_ + " is not in the cache (" + repo_dir_.string() + ")",
                   "run once without --offline (and without HF_HUB_OFFLINE) to fetch it");
}

Result<std::vector<FileEntry>> CachedSource::list_files() {
  if (listing_) return *listing_;
  std::error_code exists_ec;
  const bool recorded = fs::exists(own_ / "files.json", exists_ec);
  if (auto text = read_small(own_ / "files.json", kMaxListingBytes)) {
    auto doc = parse_json(*text, (own_ / "files.json").string());
    const Json* files = doc ? doc->find("files") : nullptr;
    if (files && files->is_array()) {
      std::vector<FileEntry> out;
      for (const auto& item : files->items()) {
        const Json* p = item.find("path");
        const Json* s = item.find("size");
        if (!p || !p->is_string() || !s || !s->as_uint() || !safe_repo_path(p->as_string())) continue;
        out.push_back({p->as_string(), *s->as_uint()});
      }
      listing_ = std::move(out);
      return *listing_;
    }
  }
  if (recorded) {
    // Written whole and renamed into place, files.json that does not read is damaged: the folder
    // is no stand-in for it (it would read as a repository without weights).
    misses_.push_back("the file listing (damaged in the cache)");
    return not_found((own_ / "files.json").string(), "the file listing of " + repo_id_ + " at " + commit_ + " is damaged in the cache",
                     "run once without --offline to fetch it again");
  }
  // Without our own listing the snapshot folder may hold any subset of the repository (transformers
  // leaves config.json alone there), so only an offline run settles for it, and says so.
  std::error_code ec;
  if (listing_kind_ == Listing::Recorded || !fs::is_directory(snapshot_, ec)) {
    misses_.push_back("the file listing");
    return not_found(snapshot_.string(), "the file listing of " + repo_id_ + " at " + commit_ + " is not in the cache",
                     "run once without --offline to fetch it");
  }
  auto walked = snapshot_files_.list_files();
  if (!walked) return walked.error();
  listing_ = std::move(walked.value());
  notes_.push_back("offline: the file list is whatever the cache folder holds, which may be part of the repository only");
  return *listing_;
}

Result<std::optional<std::string>> CachedSource::read_file(const std::string& path, uint64_t max_bytes) {
  if (!safe_repo_path(path)) return std::optional<std::string>{};
  std::error_code ec;
  if (fs::exists(repo_dir_ / ".no_exist" / commit_ / path, ec)) return std::optional<std::string>{};
  if (fs::is_regular_file(snapshot_ / path, ec)) {
    auto bytes = snapshot_files_.read_file(path, max_bytes);
    if (bytes && *bytes && !blob_intact(snapshot_ / path, **bytes)) {
      misses_.push_back(path + " (damaged in the cache)");
      return not_found(path, "file " + path + " of " + repo_id_ + " at " + commit_ + " is damaged in the cache: its bytes do not match its ETag",
                       "run once without --offline to fetch it again");
    }
    return bytes;
  }
  auto listing = list_files();
  if (!listing) return listing.error();
  for (const auto& f : *listing)
    if (f.path == path) return miss(path, "file " + path);
  return std::optional<std::string>{};
}

std::vector<Result<std::string>> CachedSource::read_ranges(const std::vector<RangeRequest>& requests) {
  std::vector<Result<std::string>> out;
  std::error_code ec;
  for (const auto& r : requests) {
    if (!safe_repo_path(r.path)) {
      out.emplace_back(miss(r.path, "header of " + r.path));
      continue;
    }
    if (!header_pack_) header_pack_.emplace(own_ / "headers.pack");
    std::string record;
    std::optional<std::string_view> prefix;
    std::optional<std::string> old_layout;
    bool damaged = header_pack_->damaged();
    switch (header_pack_->read(r.path, record)) {
      case HeaderPackReader::Lookup::Found: prefix = record; break;
      case HeaderPackReader::Lookup::Damaged: damaged = true; break;
      case HeaderPackReader::Lookup::Absent:
        if ((old_layout = read_header_file(own_, r.path))) prefix = *old_layout;
        break;
    }
    if (prefix && r.offset < prefix->size()) {
      // A first read gets the whole header: asking again for the rest would read the record twice.
      const uint64_t length = r.length_prefixed && r.offset == 0 ? prefix->size() : r.length;
      out.emplace_back(std::string(prefix->substr(static_cast<size_t>(r.offset), static_cast<size_t>(length))));
      continue;
    }
    // A complete file another tool downloaded (size as listed) serves any range.
    uint64_t listed = 0;
    if (listing_)
      for (const auto& f : *listing_)
        if (f.path == r.path) listed = f.size;
    if (fs::is_regular_file(snapshot_ / r.path, ec) && fs::file_size(snapshot_ / r.path, ec) == listed && listed > 0) {
      auto part = snapshot_files_.read_ranges({r});
      out.push_back(std::move(part.front()));
      continue;
    }
    out.emplace_back(miss(damaged ? r.path + " (its header damaged in the cache)" : r.path, "header of " + r.path));
  }
  return out;
}

}  // namespace hfi
