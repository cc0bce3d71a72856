// The Hub over HTTP as a Source. open() runs the fetch plan (hub_fetch_plan.hpp): the repository
// info, which pins the revision to a commit and lists every file with its size, the metadata
// files, and the header of every listed shard, in one transport run. The loader's reads are then
// served from what it brought; anything else is fetched when asked. Whatever arrives is also
// written to the Hugging Face cache (hub_cache.hpp), keyed by the pinned commit.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "http/http.hpp"
#include "source/hf_cache.hpp"
#include "source/hub_cache.hpp"
#include "source/hub_fetch_plan.hpp"
#include "source/hub_settings.hpp"
#include "source/repo_info.hpp"
#include "source/source.hpp"

namespace hfi {

class HubSource final : public Source {
 public:
  // `cache` may be null (nothing is written then).
  HubSource(RepoRef ref, HubSettings settings, http::Transport& transport, HubCache* cache, uint64_t header_probe_bytes);

  // Runs the fetch plan. `known` is repository info already fetched this run.
  Status open(std::optional<RepoInfo> known = std::nullopt);

  SourceKind kind() const override { return SourceKind::Hub; }
  std::string location() const override;
  std::string commit() const override { return info_.commit; }
  Result<std::vector<FileEntry>> list_files() override;
  Result<std::optional<std::string>> read_file(const std::string& path, uint64_t max_bytes) override;
  std::vector<Result<std::string>> read_ranges(const std::vector<RangeRequest>& requests) override;
  std::optional<Result<SafetensorsIndex>> take_parsed_index(const std::string& path) override;
  std::optional<Result<SafetensorsHeader>> take_parsed_header(const std::string& path, uint64_t file_size) override;
  // The files and header reads in one transport run; each is then served once from memory.
  void prefetch(const std::vector<std::string>& files, const std::vector<RangeRequest>& header_reads) override;
  // Kept (up to the end of the header) for the cache's header pack, which save_headers() writes.
  void keep_header(const std::string& path, std::string bytes) override;

  // Puts the header pack in place (an empty one when there were no shards). Call once the
  // snapshot has loaded: the pack is what marks this commit's cache as complete.
  void save_headers();
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  std::string file_url(const std::string& path) const;
  bool listed(const std::string& path) const;
  // Takes a whole-file response: the bytes, nullopt for an absent file, or the error. Stores it
  // in the cache unless `in_cache` (the plan's file sink did); the body moves out of `response`.
  Result<std::optional<std::string>> take_file(const std::string& path, http::Response& response, bool in_cache = false);
  // Writes a whole answer of `path` at `commit` to the cache; true when it is there.
  bool store_answer(const std::string& commit, const std::string& path, const http::Response& response);
  Status take_round(FetchedRound round, bool info_known);
  // Fills `slot` from the plan's header read of `request`'s file, when it covers the request.
  bool serve_read_ahead(const RangeRequest& request, std::optional<Result<std::string>>& slot);
  Result<std::string> take_range(const RangeRequest& request, http::Response& response);
  void cache_failed();

  RepoRef ref_;
  HubSettings settings_;
  http::Transport& transport_;
  HubCache* cache_;
  uint64_t probe_bytes_;
  bool opened_ = false;
  RepoInfo info_;
  // The plan's files until the loader reads them: each is handed over (moved, not copied: an
  // index can be tens of MB) on its first read; a second read fetches again.
  std::map<std::string, std::optional<std::string>> prefetched_;
  std::map<std::string, HeaderRead> read_ahead_;
  std::map<std::string, http::Response> failed_reads_;  // the plan's failed header reads, by path
  std::optional<ParsedIndex> parsed_index_;
  std::map<std::string, std::string> cdn_locations_;
  std::vector<std::string> notes_;
  bool cache_warned_ = false;
  // The cache's header pack, written as the headers come in (opened at the first).
  std::unique_ptr<HeaderPackWriter> pack_;
  void pack_header(const std::string& commit, const std::string& path, std::string_view bytes);
};

}  // namespace hfi
