// The Hub over HTTP as a Source. open() is the first round trip: the repository info (which pins
// the revision to a commit and lists every file with its size), the config files, the index, the
// quantization side-cars and a speculative header read of model.safetensors, all in parallel.
// read_ranges() then sends every shard's header read at once. Whatever arrives is also written to
// the Hugging Face cache (hub_cache.hpp), keyed by the pinned commit.
#pragma once

#include <condition_variable>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <string>
#include <string_view>
#include <vector>

#include "core/deferred_work.hpp"
#include "core/heap_warmer.hpp"
#include "http/http.hpp"
#include "source/hf_cache.hpp"
#include "source/hub_cache.hpp"
#include "source/hub_settings.hpp"
#include "source/repo_info.hpp"
#include "source/source.hpp"

namespace hfi {

// Maps an HTTP failure onto an Error a user can act on: gated, missing or private repository,
// missing revision, rejected token, disabled repository, rate limit, network. `what` names the
// request ("repository info", "config.json"); the server's request id is quoted when present.
Error hub_error(const http::Response& response, const RepoRef& ref, const HubSettings& settings, const std::string& what);

// How many bytes the header reads sent ahead ask of each shard: `default_probe`, or more when the
// index (`index_bytes` long, over `shards` root-level shards) suggests longer headers.
uint64_t early_probe_bytes(uint64_t default_probe, uint64_t index_bytes, size_t shards);

// One request: the repository info at `ref.revision` (used alone to revalidate a cached branch).
Result<RepoInfo> fetch_repo_info(const RepoRef& ref, const HubSettings& settings, http::Transport& transport);

class HubSource final : public Source {
 public:
  // `cache` may be null (nothing is written then).
  HubSource(RepoRef ref, HubSettings settings, http::Transport& transport, HubCache* cache, uint64_t header_probe_bytes);
  ~HubSource() override;
  HubSource(const HubSource&) = delete;
  HubSource& operator=(const HubSource&) = delete;

  // The first round trip. `known` is repository info already fetched this run.
  Status open(std::optional<RepoInfo> known = std::nullopt);

  SourceKind kind() const override { return SourceKind::Hub; }
  std::string location() const override;
  std::string commit() const override { return info_.commit; }
  Result<std::vector<FileEntry>> list_files() override;
  Result<std::optional<std::string>> read_file(const std::string& path, uint64_t max_bytes) override;
  std::vector<Result<std::string>> read_ranges(const std::vector<RangeRequest>& requests) override;
  // The header reads sent ahead (start_early_header_reads) are handed to `arrived` one by one as
  // they come in, while the rest are still on their way.
  std::vector<Result<std::string>> read_ranges_as_they_arrive(const std::vector<RangeRequest>& requests,
                                                              const RangeArrived& arrived) override;
  // Kept (up to the end of the header) for the cache's header pack, which save_headers() writes.
  void keep_header(const std::string& path, std::string bytes) override;

  // Writes the shard headers read so far to the cache, in one file (also done on destruction);
  // call before reading notes(). With `later`, the write runs there, and a failure becomes the
  // note that later->wait() returns instead of one in notes().
  void save_headers(DeferredWork* later = nullptr);
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  std::string file_url(const std::string& path) const;
  bool listed(const std::string& path) const;
  // Takes a whole-file response: the bytes, nullopt for an absent file, or the error.
  // Checks a file's response and stores it in the cache; the body moves out of `response`.
  Result<std::optional<std::string>> take_file(const std::string& path, http::Response& response);
  // The info and the shard header reads it makes possible, on a helper thread with a transport of
  // its own: the reads then leave on the info's connection (over HTTP/2, one connection whose
  // stream limit is already known). False when no thread could be had.
  bool start_info_then_header_reads(http::Request info);
  std::vector<http::Request> early_header_batch();  // also records early_paths_
  // Sends the header reads of the shards the listing already names, on a thread, so they travel
  // while the caller parses the index that names them officially.
  void start_early_header_reads();
  // Once the listing is in (on whichever thread has it): warms the heap of the thread that called
  // open() for the tensors the index will name, while the header reads travel. See
  // core/heap_warmer.hpp.
  void warm_heap_for_index();
  // On early_thread_: sends the batch, and announces each answer in arrivals_ as it completes.
  void perform_early_batch(const std::vector<http::Request>& batch);
  void mark_early_done();
  // Takes the announced answers: those for the pinned commit go to early_. Their paths.
  std::vector<std::string_view> take_arrivals(std::vector<size_t> indices);
  void finish_early_header_reads();
  // A response read ahead of time that covers [0, length) of `path`, if any.
  const http::Response* early_read(const std::string& path, uint64_t length) const;
  // Fills `slot` from the read-ahead response that covers `request`; false when none does.
  bool serve_early(const RangeRequest& request, std::optional<Result<std::string>>& slot);
  void cache_failed();

  RepoRef ref_;
  HubSettings settings_;
  http::Transport& transport_;
  HubCache* cache_;
  uint64_t probe_bytes_;
  bool opened_ = false;
  RepoInfo info_;
  // Round one's files until load_snapshot reads them: each is handed over (moved, not copied: an
  // index can be tens of MB) on its first read; a second read fetches again.
  std::map<std::string, std::optional<std::string>> prefetched_;
  std::map<std::string, http::Response> early_;  // header reads sent before they were asked for
  std::unique_ptr<http::Transport> early_transport_;  // used by early_thread_ alone
  std::thread early_thread_;
  HeapWarmer warmer_;  // reserved by open() on the caller's thread; released with this source
  std::vector<std::string> early_paths_;
  // Filled by early_thread_, an element at a time: element i may be read once i is in arrivals_.
  std::vector<http::Response> early_responses_;
  std::mutex arrivals_mutex_;
  std::condition_variable arrivals_cv_;
  std::vector<size_t> arrivals_;  // guarded by arrivals_mutex_: answers in, not yet taken
  bool early_done_ = false;       // guarded by arrivals_mutex_: early_thread_ has nothing more to send
  // Set by early_thread_ before it hands over the info's response through info_ready_.
  bool info_parsed_early_ = false;
  // Where a file's bytes came from when the Hub sent its read to another origin (the CDN's signed
  // URL, named by the content's hash): the rest of a header longer than the first read is asked
  // there directly, one round trip instead of two. Used on the calling thread only.
  std::map<std::string, std::string> cdn_locations_;
  void remember_location(const std::string& path, const http::Response& r);
  std::promise<http::Response> info_ready_;
  std::vector<std::string> notes_;
  bool cache_warned_ = false;
  // keep_header() is called from two threads at once while arrivals are worked on (ArrivalWork).
  std::mutex header_bytes_mutex_;
  std::map<std::string, std::string> header_bytes_;  // guarded: shard path -> its beginning, for the cache
  bool headers_unsaved_ = false;                      // guarded by header_bytes_mutex_
};

}  // namespace hfi
