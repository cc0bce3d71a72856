// What hfinspect fetched from the Hub, kept in the standard Hugging Face cache layout so that other
// tools share it and a second run needs no network:
//   models--org--name/refs/<revision>              commit sha, no trailing newline
//   models--org--name/blobs/<etag>                 whole small files (config.json, the index...)
//   models--org--name/snapshots/<commit>/<path>    relative symlink to ../../blobs/<etag>
//   models--org--name/.no_exist/<commit>/<path>    the file is known to be absent
// Shard headers are not whole files, so they must never appear in blobs/ or snapshots/ (other tools
// would take them for complete weights). They go to a folder of our own beside them:
//   models--org--name/hfinspect/<commit>/files.json          the repository listing with sizes
//   models--org--name/hfinspect/<commit>/headers.pack        the first 8 + N bytes of every shard,
//                                                            in one file (one file creation, not
//                                                            one per shard: 163 for DeepSeek-V3),
//                                                            each record with a checksum
// What is read back is checked: a blob against the ETag it is named by, each header in the pack
// against its checksum (header_pack.hpp: read record by record), files.json by parsing. Damage
// counts as a miss: fetched again online, named offline.
// (Earlier versions kept one file per shard under hfinspect/<commit>/headers/<path>; those are
// still read.) Every write goes to a temporary name first and is renamed into place, so readers never see a
// half-written file.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.hpp"  // safe_repo_path
#include "source/header_pack.hpp"
#include "source/local_source.hpp"
#include "source/source.hpp"

namespace hfi {


class HubCache {
 public:
  HubCache(std::filesystem::path cache_dir, const std::string& repo_id);

  const std::filesystem::path& repo_dir() const { return repo_dir_; }
  std::optional<std::string> read_ref(const std::string& revision) const;

  // Each returns false when the cache could not be written (read-only, disk full); callers carry on.
  bool store_ref(const std::string& revision, const std::string& commit);
  bool store_file(const std::string& commit, const std::string& path, const std::string& etag, const std::string& bytes);
  bool store_missing(const std::string& commit, const std::string& path);
  bool store_listing(const std::string& commit, const std::vector<FileEntry>& files);
  // The beginnings (8-byte length + header) of the shards read for this commit, path -> bytes;
  // replaces an earlier pack of the same commit.
  bool store_header_pack(const std::string& commit, const std::map<std::string, std::string>& headers);

  // Whether an earlier run read this commit to the end: its listing and its header pack (written
  // last, once the snapshot loaded) are both there. Only then is the cache worth reading online.
  bool holds_complete_read(const std::string& commit) const;

  std::filesystem::path snapshot_dir(const std::string& commit) const;
  std::filesystem::path own_dir(const std::string& commit) const;

 private:
  std::filesystem::path repo_dir_;
};

// Writes a commit's headers.pack record by record, as the headers come in, to a temporary name:
// commit() renames it into place (and only then does the cache count as complete). Destroyed
// without commit(), it removes what it wrote.
class HeaderPackWriter {
 public:
  HeaderPackWriter(const HubCache& cache, const std::string& commit);
  ~HeaderPackWriter();
  HeaderPackWriter(const HeaderPackWriter&) = delete;
  HeaderPackWriter& operator=(const HeaderPackWriter&) = delete;

  // Each returns false once anything could not be written (read-only cache, full disk).
  bool add(const std::string& path, std::string_view bytes);
  bool commit();

 private:
  std::filesystem::path target_, temporary_;
  std::ofstream out_;
  bool ok_ = false;
  bool committed_ = false;
};

// Reads one commit back from the cache, without the network. It serves shard headers from our own
// folder, or from complete files in the snapshot that another tool downloaded. Whatever the cache
// cannot answer is recorded in misses(), so the caller can fetch instead, or say what is missing.
class CachedSource final : public Source {
 public:
  // Where the list of the repository's files comes from, which decides what counts as missing.
  enum class Listing {
    Recorded,      // only hfinspect's own files.json; without it, everything is a miss
    OrFolder,      // files.json, else whatever the snapshot folder holds (offline: best effort)
  };
  CachedSource(const HubCache& cache, std::string repo_id, std::string commit, Listing listing = Listing::Recorded);
  // With the listing the Hub just gave (a revalidated branch).
  CachedSource(const HubCache& cache, std::string repo_id, std::string commit, std::vector<FileEntry> listing);
  // Holds the header pack open.
  CachedSource(const CachedSource&) = delete;
  CachedSource& operator=(const CachedSource&) = delete;

  SourceKind kind() const override { return SourceKind::HfCache; }
  std::string location() const override;
  std::string commit() const override { return commit_; }
  Result<std::vector<FileEntry>> list_files() override;
  Result<std::optional<std::string>> read_file(const std::string& path, uint64_t max_bytes) override;
  std::vector<Result<std::string>> read_ranges(const std::vector<RangeRequest>& requests) override;

  const std::vector<std::string>& misses() const { return misses_; }
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  Error miss(const std::string& path, const std::string& what);

  std::filesystem::path repo_dir_;
  std::filesystem::path snapshot_;
  std::filesystem::path own_;
  std::string repo_id_;
  std::string commit_;
  LocalSource snapshot_files_;
  std::optional<HeaderPackReader> header_pack_;  // opened on first use
  Listing listing_kind_ = Listing::Recorded;
  std::optional<std::vector<FileEntry>> listing_;
  std::vector<std::string> misses_;
  std::vector<std::string> notes_;
};

}  // namespace hfi
