#include "source/hub_source.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "core/checked.hpp"
#include "core/json.hpp"
#include "core/text.hpp"
#include "http/url.hpp"
#include "source/repo_info.hpp"

namespace hfi {
namespace {

constexpr uint64_t kMaxInfoBytes = 64u << 20;
constexpr uint64_t kMaxSmallFile = 16u << 20;
constexpr uint64_t kMaxIndexFile = 64u << 20;
constexpr size_t kMaxTreePages = 1000;
constexpr uint64_t kMaxStoredHeader = 100'000'000 + 8;

// Files worth asking for before the listing arrives: what load_snapshot reads, plus the
// quantization side-cars. Absent ones cost one quiet 404 each.
const std::vector<std::string>& round_one_files() {
  static const std::vector<std::string> files = {
      "config.json",          "generation_config.json", "tokenizer_config.json", "model.safetensors.index.json",
      "quantize_config.json", "hf_quant_config.json",
  };
  return files;
}

std::string normalized_etag(std::string etag) {
  if (etag.rfind("W/", 0) == 0) etag = etag.substr(2);
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
  return etag;
}

std::string with_request_id(std::string message, const http::Response& r) {
  std::string id = r.request_id();
  if (!id.empty()) message += " (request id " + id + ")";
  return message;
}

// Mirrors that do not answer blobs=true give no sizes: the tree API has them, paginated.
Status fill_sizes_from_tree(RepoInfo& info, const RepoRef& ref, const HubSettings& settings, http::Transport& transport) {
  std::string url = settings.endpoint + "/api/models/" + ref.repo_id + "/tree/" + info.commit + "?recursive=true";
  std::vector<FileEntry> files;
  for (size_t page = 0; !url.empty(); ++page) {
    if (page == kMaxTreePages) return malformed(url, "Link", "tree listing goes on for more than 1000 pages");
    http::Request request;
    request.url = url;
    request.max_body = kMaxInfoBytes;
    auto response = transport.perform({request}, "file listing").front();
    if (response.status != 200) return hub_error(response, ref, settings, "file listing");
    auto page_status = parse_tree_page(response.body, url, files);
    if (!page_status) return page_status.error();
    url = next_link(response.headers);
    if (!url.empty() && http::origin_of(url) != http::origin_of(settings.endpoint))
      return malformed(url, "Link", "next page points away from the endpoint");
  }
  info.files = std::move(files);
  info.sizes_known = true;
  return Ok{};
}

http::Request info_request(const RepoRef& ref, const HubSettings& settings) {
  http::Request r;
  r.url = settings.endpoint + "/api/models/" + ref.repo_id + "/revision/" + http::encode_component(ref.revision) + "?blobs=true";
  r.max_body = kMaxInfoBytes;
  return r;
}

std::string cache_failure_note(const HubCache& cache) {
  return "could not write to the cache at " + cache.repo_dir().string() + "; the next run will fetch again";
}

// Works through arrived ranges on the calling thread and one helper. The caller's work on each
// (for DeepSeek-V3, parsing a 72 KB shard header: about 60 µs) does not depend on the others',
// and the last answers of a burst come in together: worked through on one thread, they left it
// 5-15 ms behind the network at the end of a cold run. The caller's work must allow two calls at
// once for different indices.
class ArrivalWork {
 public:
  using Slots = std::vector<std::optional<Result<std::string>>>;
  ArrivalWork(const Source::RangeArrived& work, Slots& slots) : work_(work), slots_(slots) {
    try {
      helper_ = std::thread([this] { help(); });
    } catch (const std::system_error&) {  // no thread to be had: this one does it all
    }
  }
  ~ArrivalWork() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    more_.notify_all();
    if (helper_.joinable()) helper_.join();
  }
  ArrivalWork(const ArrivalWork&) = delete;
  ArrivalWork& operator=(const ArrivalWork&) = delete;

  // Queues `indices` (slots that hold bytes) and works on the queue until it is empty; the helper
  // may still be finishing one.
  void add(const std::vector<size_t>& indices) {
    if (indices.empty()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.insert(queue_.end(), indices.begin(), indices.end());
      unfinished_ += indices.size();
    }
    more_.notify_one();
    while (auto i = take()) work_on(*i);
  }
  // Returns once every queued index is done; rethrows what the helper's work threw.
  void finish() {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return unfinished_ == 0; });
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  std::optional<size_t> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.empty()) return std::nullopt;
    size_t i = queue_.back();  // order does not matter; the back is cheapest
    queue_.pop_back();
    return i;
  }
  void work_on(size_t i) {
    std::exception_ptr failure;
    try {
      work_(i, slots_[i]->value());
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure && !failure_) failure_ = failure;
    if (--unfinished_ == 0) done_.notify_all();
  }
  void help() {
    for (;;) {
      size_t i;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        more_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping
        i = queue_.back();
        queue_.pop_back();
      }
      work_on(i);
    }
  }

  const Source::RangeArrived& work_;
  Slots& slots_;
  std::mutex mutex_;
  std::condition_variable more_, done_;
  std::vector<size_t> queue_;   // guarded by mutex_
  size_t unfinished_ = 0;       // guarded: queued or being worked on
  bool stop_ = false;           // guarded
  std::exception_ptr failure_;  // guarded: the first exception the work threw
  std::thread helper_;          // last: started once the rest is in place
};

}  // namespace

Error hub_error(const http::Response& r, const RepoRef& ref, const HubSettings& settings, const std::string& what) {
  const std::string repo_page = settings.endpoint + "/" + ref.repo_id;
  const std::string subject = what + " of " + ref.repo_id;
  if (r.status == 0) {
    std::string message = "cannot fetch " + subject + " from " + settings.endpoint + ": " + r.transport_error;
    if (r.attempts > 1) message += " (after " + std::to_string(r.attempts) + " attempts)";
    return {ErrorKind::Network, r.url, "", message,
            "check the network, the proxy variables (https_proxy, no_proxy) and HF_ENDPOINT; --offline reads the cache"};
  }
  auto header = [&](const char* name) {
    auto it = r.headers.find(name);
    return it == r.headers.end() ? std::string() : it->second;
  };
  const std::string code = header("x-error-code");
  const std::string server_message = header("x-error-message");
  const bool token = !settings.token.empty();
  if (code == "RevisionNotFound")
    return {ErrorKind::NotFound, r.url, "revision",
            with_request_id("revision '" + ref.revision + "' does not exist in " + ref.repo_id, r),
            "branches and tags are listed at " + repo_page + "/tree/main; a commit sha works too"};
  if (code == "GatedRepo") {
    if (r.status == 401 || !token)
      return {ErrorKind::NotFound, r.url, "", with_request_id(ref.repo_id + " is gated: its files need an authenticated request", r),
              "request access at " + repo_page + ", then set HF_TOKEN (or --token) to a token of that account"};
    return {ErrorKind::NotFound, r.url, "",
            with_request_id(ref.repo_id + " is gated and the token from " + settings.token_source + " has no access" +
                                (server_message.empty() ? "" : ": " + server_message),
                            r),
            "request access at " + repo_page + " (approval may still be pending)"};
  }
  if (server_message.find("Invalid credentials") != std::string::npos)
    return {ErrorKind::NotFound, r.url, "", with_request_id("the Hub rejected the token from " + settings.token_source, r),
            "create a fresh token at https://huggingface.co/settings/tokens, or unset it to read public repositories"};
  if (r.status == 403 && server_message.find("disabled") != std::string::npos)
    return {ErrorKind::NotFound, r.url, "", with_request_id(ref.repo_id + " is disabled on the Hub", r), {}};
  if (code == "EntryNotFound")
    return {ErrorKind::NotFound, r.url, "", with_request_id(subject + " does not exist at revision " + ref.revision, r), {}};
  if (code == "RepoNotFound" || r.status == 401 || r.status == 404) {
    if (token)
      return {ErrorKind::NotFound, r.url, "",
              with_request_id(ref.repo_id + " does not exist, or the token from " + settings.token_source + " cannot see it", r),
              "check the spelling of the repository id"};
    return {ErrorKind::NotFound, r.url, "", with_request_id(ref.repo_id + " does not exist, or is private", r),
            "check the spelling; for a private repository set HF_TOKEN (or --token)"};
  }
  if (r.status == 429) {
    std::string message = "the Hub's rate limit is exhausted";
    if (r.retry_after_ms) message += "; it resets in about " + std::to_string((*r.retry_after_ms + 999) / 1000) + " s";
    return {ErrorKind::Network, r.url, "", with_request_id(message + " (fetching " + subject + ")", r),
            token ? "wait for the window to reset" : "wait, or set HF_TOKEN: authenticated requests get a higher limit"};
  }
  if (r.status >= 500 || r.status == 408)
    return {ErrorKind::Network, r.url, "",
            with_request_id("the server answered " + std::to_string(r.status) + " for " + subject + " after " +
                                std::to_string(r.attempts) + " attempt(s)",
                            r),
            "try again later"};
  if (r.status == 403)
    return {ErrorKind::NotFound, r.url, "",
            with_request_id("access to " + subject + " is refused" + (server_message.empty() ? "" : ": " + server_message), r),
            "check the token's permissions"};
  return {ErrorKind::Malformed, r.url, "", with_request_id("unexpected HTTP status " + std::to_string(r.status) + " for " + subject, r), {}};
}

Result<RepoInfo> fetch_repo_info(const RepoRef& ref, const HubSettings& settings, http::Transport& transport) {
  auto request = info_request(ref, settings);
  auto response = transport.perform({request}, "repository info").front();
  if (response.status != 200) return hub_error(response, ref, settings, "repository info");
  auto info = parse_repo_info(response.body, request.url);
  if (info && !info->sizes_known) {
    auto filled = fill_sizes_from_tree(*info, ref, settings, transport);
    if (!filled) return filled.error();
  }
  return info;
}

HubSource::HubSource(RepoRef ref, HubSettings settings, http::Transport& transport, HubCache* cache, uint64_t header_probe_bytes)
    : ref_(std::move(ref)), settings_(std::move(settings)), transport_(transport), cache_(cache), probe_bytes_(header_probe_bytes) {}

HubSource::~HubSource() {
  finish_early_header_reads();
  save_headers();
}

namespace {

bool early_read_shard(const FileEntry& f) {
  // Only the common layout: root-level shards beside a root index. consolidated*.safetensors
  // repeats the shards in another layout and is not read.
  return f.path.find('/') == std::string::npos && f.path.ends_with(".safetensors") && !f.path.starts_with("consolidated");
}

}  // namespace

uint64_t early_probe_bytes(uint64_t default_probe, uint64_t index_bytes, size_t shards) {
  // The index names every tensor once, with its shard's file name; a header names it with its
  // dtype, shape and offsets, which take more room. Over the 27 sharded repositories under
  // fixtures/, the longest shard header is 1.3-1.6 times the index's bytes per shard in 21 and
  // up to 31 times in the rest, whose tensors crowd into a few shards; with 1.8 times and the
  // default as a floor, every header of 26 of them fits its first read. That covers a
  // mixture-of-experts' long headers (Qwen3-30B-A3B: 156 KB each) in one round trip, while a
  // repository whose headers fit the default (DeepSeek-V3: 75 KB, 1.8 x 55 KB per shard = 99 KB)
  // asks for no more than before. A longer header still gets a second read.
  constexpr uint64_t kMostEarlyProbe = uint64_t{8} << 20;
  if (shards == 0) return default_probe;
  // The listing's sizes come from the server: a per-shard share past the cap is not multiplied.
  const uint64_t per_shard = std::min(index_bytes / shards, kMostEarlyProbe);
  return std::max(default_probe, std::min(per_shard / 5 * 9 + 8, kMostEarlyProbe));
}

std::vector<http::Request> HubSource::early_header_batch() {
  std::vector<http::Request> batch;
  const auto index = std::find_if(info_.files.begin(), info_.files.end(),
                                  [](const FileEntry& f) { return f.path == "model.safetensors.index.json"; });
  if (index == info_.files.end()) return batch;
  const size_t shards = static_cast<size_t>(std::count_if(info_.files.begin(), info_.files.end(), early_read_shard));
  const uint64_t probe = early_probe_bytes(probe_bytes_, index->size, shards);
  constexpr size_t kMostEarly = 256;  // as many as load_snapshot asks for at once
  for (const auto& f : info_.files) {
    if (!early_read_shard(f)) continue;
    if (batch.size() == kMostEarly) break;
    http::Request r;
    r.url = file_url(f.path);
    r.range_offset = 0;
    r.range_length = std::min(probe, f.size);
    r.length_prefixed = true;
    batch.push_back(std::move(r));
    early_paths_.push_back(f.path);
  }
  return batch;
}

void HubSource::warm_heap_for_index() {
  // Classifying and decoding DeepSeek-V3's tensors takes 20 MB of fresh memory on open()'s thread,
  // a little over twice its 9 MB index: 2.5 bytes are warmed per index byte, up to what open()
  // reserved.
  for (const auto& f : info_.files)
    if (f.path == "model.safetensors.index.json") {
      const auto index_bytes = static_cast<size_t>(std::min<uint64_t>(f.size, SIZE_MAX / 3));  // no overflow below
      warmer_.warm(index_bytes / 2 * 5);
    }
}

void HubSource::start_early_header_reads() {
  auto batch = early_header_batch();
  if (batch.empty()) return;
  warm_heap_for_index();
  // A sibling transport of its own: the thread's reads and this thread's go on side by side.
  try {
    early_transport_ = transport_.sibling();
    early_done_ = false;
    early_thread_ = std::thread([this, batch = std::move(batch)] {
      perform_early_batch(batch);
      mark_early_done();
    });
  } catch (const std::system_error&) {
    early_paths_.clear();  // no thread to be had: the reads simply happen when asked for
  }
}

bool HubSource::start_info_then_header_reads(http::Request info) {
  try {
    early_transport_ = transport_.sibling();
    early_thread_ = std::thread([this, info = std::move(info)] {
      auto response = early_transport_->perform({info}, "repository info").front();
      std::vector<http::Request> batch;
      if (response.status == 200) {
        auto parsed = parse_repo_info(response.body, info.url);
        if (parsed && parsed->sizes_known) {
          // open() reads info_ only once the promise is kept.
          info_ = std::move(parsed.value());
          info_parsed_early_ = true;
          batch = early_header_batch();
        }
      }
      info_ready_.set_value(std::move(response));
      if (!batch.empty()) {
        warm_heap_for_index();
        perform_early_batch(batch);
      }
      mark_early_done();
    });
  } catch (const std::system_error&) {
    return false;
  }
  return true;
}

void HubSource::perform_early_batch(const std::vector<http::Request>& batch) {
  early_responses_.resize(batch.size());  // before the first answer is announced
  early_transport_->perform(batch, "shard headers", [this](size_t i, http::Response& r) {
    early_responses_[i] = std::move(r);
    std::lock_guard<std::mutex> lock(arrivals_mutex_);
    arrivals_.push_back(i);
    arrivals_cv_.notify_one();
  });
}

void HubSource::mark_early_done() {
  std::lock_guard<std::mutex> lock(arrivals_mutex_);
  early_done_ = true;
  arrivals_cv_.notify_one();
}

std::vector<std::string_view> HubSource::take_arrivals(std::vector<size_t> indices) {
  std::vector<std::string_view> taken;
  for (size_t i : indices) {
    if (i >= early_paths_.size() || i >= early_responses_.size()) continue;
    http::Response& r = early_responses_[i];
    if ((r.status == 200 || r.status == 206) && r.first_header("x-repo-commit") == info_.commit) {
      remember_location(early_paths_[i], r);
      early_.insert_or_assign(early_paths_[i], std::move(r));
      taken.push_back(early_paths_[i]);
    }
  }
  return taken;
}

void HubSource::finish_early_header_reads() {
  if (!early_thread_.joinable()) return;
  early_thread_.join();
  std::vector<size_t> rest;
  {
    std::lock_guard<std::mutex> lock(arrivals_mutex_);
    rest.swap(arrivals_);
  }
  take_arrivals(std::move(rest));
  std::vector<http::Response>().swap(early_responses_);
}

bool HubSource::serve_early(const RangeRequest& rr, std::optional<Result<std::string>>& slot) {
  if (rr.offset != 0 || !early_read(rr.path, rr.length)) return false;
  auto it = early_.find(rr.path);
  std::string bytes = std::move(it->second.body);
  // A header read sized from the index may have brought more of the header than asked: all of it
  // is handed over (the transport already stopped at its end).
  if (bytes.size() > rr.length && !rr.length_prefixed) bytes.resize(static_cast<size_t>(rr.length));
  early_.erase(it);  // served: the rest of the read-ahead response goes
  slot = std::move(bytes);
  return true;
}

const http::Response* HubSource::early_read(const std::string& path, uint64_t length) const {
  auto it = early_.find(path);
  if (it == early_.end()) return nullptr;
  const http::Response& r = it->second;
  if (!r.protocol_error.empty()) return nullptr;
  bool whole_file = r.total_size && r.body.size() == *r.total_size;
  return length <= r.body.size() || whole_file || r.ended_at_length_prefix ? &r : nullptr;
}

std::string HubSource::location() const { return settings_.endpoint + "/" + ref_.repo_id; }

std::string HubSource::file_url(const std::string& path) const {
  const std::string& revision = info_.commit.empty() ? ref_.revision : info_.commit;
  return settings_.endpoint + "/" + ref_.repo_id + "/resolve/" + http::encode_component(revision) + "/" + http::encode_path(path);
}

void HubSource::remember_location(const std::string& path, const http::Response& r) {
  // Only a redirect's target: a mirror that serves the bytes itself has nothing to skip.
  if (r.redirects.empty() || http::origin_of(r.url) == http::origin_of(settings_.endpoint)) return;
  cdn_locations_.insert_or_assign(path, r.url);
}

bool HubSource::listed(const std::string& path) const {
  return std::any_of(info_.files.begin(), info_.files.end(), [&](const FileEntry& f) { return f.path == path; });
}

void HubSource::cache_failed() {
  if (cache_warned_ || !cache_) return;
  cache_warned_ = true;
  notes_.push_back(cache_failure_note(*cache_));
}

Status HubSource::open(std::optional<RepoInfo> known) {
  opened_ = true;
  // Below the CLI's mmap threshold (32 MB), so that the block comes from, and goes back to, this
  // thread's heap. Untouched, it costs address space only.
  constexpr size_t kMostWarmed = 24u << 20;
  warmer_.reserve(kMostWarmed);
  if (known) info_ = std::move(*known);
  // The files' addresses are made first: file_url() reads info_, which the helper started below
  // writes once the repository info is in.
  std::vector<http::Request> files;
  for (const auto& path : round_one_files()) {
    http::Request r;
    r.url = file_url(path);
    r.max_body = path.ends_with(".index.json") ? kMaxIndexFile : kMaxSmallFile;
    files.push_back(r);
  }
  // Single-file repositories are common: read model.safetensors's header now rather than a round
  // later. Nothing says yet how long it is, and quantized single files carry long ones (GPTQ, AWQ
  // and bitsandbytes uploads under fixtures/: 105-168 KB; Gemma 4 E2B: 264 KB). It is one request
  // (a sharded repository answers it with a 404), and the read stops at the header's end, so it
  // asks for up to 512 KiB.
  constexpr uint64_t kSingleFileProbe = (uint64_t{512} << 10) + 8;
  http::Request probe;
  probe.url = file_url("model.safetensors");
  probe.range_offset = 0;
  probe.range_length = std::max(probe_bytes_, kSingleFileProbe);
  probe.length_prefixed = true;
  files.push_back(probe);

  std::vector<http::Request> requests;
  const http::Request info_req = info_request(ref_, settings_);
  const bool info_on_helper = !known && start_info_then_header_reads(info_req);
  if (!known && !info_on_helper) requests.push_back(info_req);
  size_t first_file = requests.size();
  requests.insert(requests.end(), files.begin(), files.end());

  // The repository info usually answers first (the files take a redirect more): as soon as it
  // pins the commit and lists the shards, their header reads leave, beside the rest of this round.
  bool info_taken = false;
  auto take_info = [&](size_t i, http::Response& r) {
    if (known || info_on_helper || i != 0 || r.status != 200) return;
    auto info = parse_repo_info(r.body, requests[0].url);
    if (!info || !info->sizes_known) return;  // dealt with below, once the round is over
    info_ = std::move(info.value());
    info_taken = true;
    start_early_header_reads();
  };
  auto responses = transport_.perform(requests, "metadata files", take_info);
  std::optional<http::Response> info_response;
  if (info_on_helper) {
    info_response = info_ready_.get_future().get();
    info_taken = info_parsed_early_;
    // Not parsed there (an error, or a mirror without sizes): the thread is done; handled below.
    if (!info_taken) early_thread_.join();
  } else if (!known) {
    info_response = std::move(responses[0]);
  }
  if (!known && !info_taken) {
    if (info_response->status != 200) return hub_error(*info_response, ref_, settings_, "repository info");
    auto info = parse_repo_info(info_response->body, info_req.url);
    if (!info) return info.error();
    info_ = std::move(info.value());
    if (!info_.sizes_known) {
      auto filled = fill_sizes_from_tree(info_, ref_, settings_, transport_);
      if (!filled) return filled.error();
    }
  }
  if (!info_taken) start_early_header_reads();  // the shard reads travel while the rest of this round is stored
  // A branch can move between our requests; anything answered for another commit is asked again.
  std::vector<std::string> stale;
  for (size_t i = 0; i < round_one_files().size(); ++i) {
    const std::string& path = round_one_files()[i];
    http::Response& r = responses[first_file + i];
    std::string commit = r.first_header("x-repo-commit");
    if (!commit.empty() && commit != info_.commit) {
      stale.push_back(path);
      continue;
    }
    auto taken = take_file(path, r);
    if (!taken) return taken.error();
    prefetched_[path] = std::move(taken.value());
  }
  const http::Response& probed = responses.back();
  if ((probed.status == 200 || probed.status == 206) && probed.first_header("x-repo-commit") == info_.commit) {
    remember_location("model.safetensors", probed);
    early_.emplace("model.safetensors", probed);
  }
  for (const auto& path : stale) {
    auto again = read_file(path, path.ends_with(".index.json") ? kMaxIndexFile : kMaxSmallFile);
    if (!again) return again.error();
    prefetched_[path] = std::move(again.value());
  }
  if (cache_) {
    if (!cache_->store_listing(info_.commit, info_.files)) cache_failed();
    if (ref_.revision != info_.commit && !cache_->store_ref(ref_.revision, info_.commit)) cache_failed();
  }
  return Ok{};
}

Result<std::optional<std::string>> HubSource::take_file(const std::string& path, http::Response& r) {
  if (r.status == 404) {
    // Absent means the Hub itself said EntryNotFound (or a mirror's bare 404 with no redirect in
    // between) for a file the listing does not name. A 404 further down a redirect chain, or for
    // a listed file, is a fault on the way: remembering it as absent would poison the cache.
    auto code = r.headers.find("x-error-code");
    bool entry_not_found = (code != r.headers.end() && code->second == "EntryNotFound") || r.redirects.empty();
    if (entry_not_found && !listed(path)) {
      auto commit = r.headers.find("x-repo-commit");
      if (cache_ && commit != r.headers.end() && commit->second == info_.commit) cache_->store_missing(info_.commit, path);
      return std::optional<std::string>{};
    }
    return Error{ErrorKind::Network, r.url, "",
                 "the server answered 404 for " + path + ", which the repository listing names" +
                     (r.request_id().empty() ? std::string() : " (request id " + r.request_id() + ")"),
                 "try again; if it persists, the Hub or mirror at " + settings_.endpoint + " is inconsistent"};
  }
  if (r.status != 200) return hub_error(r, ref_, settings_, path);
  if (r.too_large) return malformed(path, "", "is larger than hfinspect reads for a metadata file");
  std::string etag = normalized_etag(r.first_header("x-linked-etag"));
  if (etag.empty()) etag = normalized_etag(r.first_header("etag"));
  if (cache_ && !cache_->store_file(info_.commit, path, etag, r.body) && !etag.empty()) cache_failed();
  return std::optional<std::string>(std::move(r.body));
}

Result<std::vector<FileEntry>> HubSource::list_files() {
  if (!opened_) {
    auto status = open();
    if (!status) return status.error();
  }
  return info_.files;
}

Result<std::optional<std::string>> HubSource::read_file(const std::string& path, uint64_t max_bytes) {
  if (!opened_) {
    auto status = open();
    if (!status) return status.error();
  }
  if (auto it = prefetched_.find(path); it != prefetched_.end()) {
    if (it->second && it->second->size() > max_bytes)
      return malformed(path, "", "is " + std::to_string(it->second->size()) + " bytes, over the limit of " + std::to_string(max_bytes));
    std::optional<std::string> bytes = std::move(it->second);
    prefetched_.erase(it);
    return bytes;
  }
  if (!listed(path)) return std::optional<std::string>{};  // the listing is authoritative for this commit
  http::Request request;
  request.url = file_url(path);
  request.max_body = max_bytes;
  auto response = transport_.perform({request}, path).front();
  return take_file(path, response);
}

void HubSource::keep_header(const std::string& path, std::string bytes) {
  if (!cache_ || bytes.size() < 8) return;
  // Keep the 8-byte length and the header, not the tensor bytes a probe also brought.
  auto n = read_u64_le({reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()});
  if (!n || *n > kMaxStoredHeader) return;
  if (bytes.size() > 8 + *n) bytes.resize(static_cast<size_t>(8 + *n));
  std::lock_guard<std::mutex> lock(header_bytes_mutex_);
  header_bytes_[path] = std::move(bytes);
  headers_unsaved_ = true;
}

void HubSource::save_headers(DeferredWork* later) {
  std::lock_guard<std::mutex> lock(header_bytes_mutex_);  // uncontended: the arrivals are done
  if (!cache_ || !headers_unsaved_) return;
  headers_unsaved_ = false;
  if (!later) {
    if (!cache_->store_header_pack(info_.commit, header_bytes_)) cache_failed();
    return;
  }
  // The task owns what it writes: this source, and the cache object, may be gone when it runs.
  later->run([cache = *cache_, commit = info_.commit, headers = std::move(header_bytes_)]() mutable -> std::optional<std::string> {
    if (cache.store_header_pack(commit, headers)) return std::nullopt;
    return cache_failure_note(cache);
  });
  header_bytes_.clear();
}

std::vector<Result<std::string>> HubSource::read_ranges(const std::vector<RangeRequest>& requests) {
  return read_ranges_as_they_arrive(requests, {});
}

std::vector<Result<std::string>> HubSource::read_ranges_as_they_arrive(const std::vector<RangeRequest>& requests,
                                                                       const RangeArrived& arrived) {
  std::vector<std::optional<Result<std::string>>> slots(requests.size());
  if (arrived && early_thread_.joinable()) {
    // While the read-ahead is travelling, each answer that serves a request goes to `arrived` at
    // once: the caller parses one header while the next ones are still on the wire.
    std::unordered_map<std::string_view, size_t> wanted;
    for (size_t i = 0; i < requests.size(); ++i)
      if (requests[i].offset == 0) wanted.emplace(requests[i].path, i);
    ArrivalWork work(arrived, slots);
    for (bool last = false; !last;) {
      std::vector<size_t> in;
      {
        std::unique_lock<std::mutex> lock(arrivals_mutex_);
        arrivals_cv_.wait(lock, [this] { return !arrivals_.empty() || early_done_; });
        in.swap(arrivals_);
        last = early_done_;  // set after the thread's last announcement: `in` holds the rest
      }
      std::vector<size_t> served;
      for (std::string_view path : take_arrivals(std::move(in))) {
        auto w = wanted.find(path);
        if (w == wanted.end() || slots[w->second]) continue;
        if (serve_early(requests[w->second], slots[w->second])) served.push_back(w->second);
      }
      work.add(served);
    }
    work.finish();
  }
  finish_early_header_reads();
  std::vector<http::Request> batch;
  std::vector<size_t> owner;
  std::vector<size_t> to_cdn;  // batch entries sent straight to a remembered CDN location
  for (size_t i = 0; i < requests.size(); ++i) {
    const auto& rr = requests[i];
    if (slots[i] || serve_early(rr, slots[i])) continue;
    http::Request r;
    r.url = file_url(rr.path);
    if (auto known = cdn_locations_.find(rr.path); known != cdn_locations_.end()) {
      r.url = known->second;
      to_cdn.push_back(batch.size());
    }
    r.range_offset = rr.offset;
    r.range_length = rr.length;
    r.length_prefixed = rr.length_prefixed;
    batch.push_back(r);
    owner.push_back(i);
  }
  auto responses = transport_.perform(batch, "shard headers");
  // A signed URL can expire, or a CDN refuse it: those reads go through the Hub after all.
  std::vector<size_t> refused;
  for (size_t j : to_cdn) {
    const int status = responses[j].status;
    if (status != 200 && status != 206 && status != 416) refused.push_back(j);
  }
  if (!refused.empty()) {
    std::vector<http::Request> again;
    for (size_t j : refused) {
      cdn_locations_.erase(requests[owner[j]].path);
      again.push_back(batch[j]);
      again.back().url = file_url(requests[owner[j]].path);
    }
    auto answers = transport_.perform(again, "shard headers");
    for (size_t k = 0; k < refused.size(); ++k) responses[refused[k]] = std::move(answers[k]);
  }
  for (size_t j = 0; j < responses.size(); ++j) {
    const auto& rr = requests[owner[j]];
    auto& r = responses[j];
    if (!r.protocol_error.empty()) {
      slots[owner[j]] = malformed(r.url, "Content-Range", "the server " + r.protocol_error);
    } else if (r.status == 416) {
      slots[owner[j]] = malformed(rr.path, "bytes " + std::to_string(rr.offset) + "+",
                                  "the server says this range lies past the end of the file");
    } else if (r.status != 200 && r.status != 206) {
      slots[owner[j]] = hub_error(r, ref_, settings_, rr.path);
    } else {
      if (auto linked = parse_decimal(r.first_header("x-linked-size"))) {
        for (const auto& f : info_.files)
          if (f.path == rr.path && f.size != *linked)
            notes_.push_back(rr.path + ": the listing gives " + std::to_string(f.size) + " bytes, the Hub's redirect " +
                             std::to_string(*linked));
      }
      slots[owner[j]] = std::move(r.body);
    }
  }
  std::vector<Result<std::string>> out;
  out.reserve(slots.size());
  for (auto& s : slots) out.push_back(std::move(*s));
  return out;
}

}  // namespace hfi
