#include "source/hub_fetch_plan.hpp"

#include <algorithm>

#include "core/json_dom.hpp"
#include "formats/safetensors_header.hpp"
#include "http/url.hpp"
#include "source/hub_errors.hpp"

namespace hfi {
namespace {

constexpr uint64_t kMaxInfoBytes = 64u << 20;
constexpr size_t kMaxTreePages = 1000;
// Quantized single files carry long headers (the GPTQ, AWQ and bitsandbytes uploads under
// fixtures/: 105-168 KB; Gemma 4 E2B: 264 KB); the read stops at the header's end anyway.
constexpr uint64_t kSingleFileProbe = (uint64_t{512} << 10) + 8;
// Bounds on what the plan holds in memory at once: the shard reads sent ahead, and the rests of
// long headers. Past them, the reads are made when the loader asks, in batches of its own.
constexpr uint64_t kMostReadAhead = uint64_t{256} << 20;
constexpr uint64_t kMostHeaderRests = uint64_t{512} << 20;

// Only the common layout is read ahead: root-level shards beside a root index.
// consolidated*.safetensors repeats the shards in another layout and is not read.
bool read_ahead_shard(const FileEntry& f) {
  return f.path.find('/') == std::string::npos && f.path.ends_with(".safetensors") && !f.path.starts_with("consolidated") &&
         f.path != kSingleFile[0];
}

const FileEntry* listed(const RepoInfo& info, const std::string& path) {
  auto it = std::find_if(info.files.begin(), info.files.end(), [&](const FileEntry& f) { return f.path == path; });
  return it == info.files.end() ? nullptr : &*it;
}

http::Request header_read(std::string url, uint64_t length) {
  http::Request r;
  r.url = std::move(url);
  r.range_offset = 0;
  r.range_length = length;
  r.length_prefixed = true;
  return r;
}

bool answered_with_bytes(const http::Response& r) {
  return (r.status == 200 || r.status == 206) && r.protocol_error.empty();
}

// One run of the plan: the handler that turns each answer into what it makes possible.
class PlanRun {
 public:
  PlanRun(const RepoRef& ref, const HubSettings& settings, const std::optional<RepoInfo>& known, uint64_t probe,
          const PlanSinks& sinks)
      : ref_(ref), settings_(settings), probe_(probe), sinks_(sinks) {
    if (known) info_ = *known;
  }

  std::vector<http::Request> first_requests() {
    std::vector<http::Request> out;
    for (const PlannedRequest& planned : kFetchPlan) {
      if (planned.when != SentWhen::AtStart) continue;
      if (planned.step == FetchStep::RepoInfo && !info_) out.push_back(note(planned.step, "", repo_info_request(ref_, settings_)));
      for (const char* path : planned.paths) out.push_back(note(planned.step, path, first_request(planned.step, path)));
    }
    if (info_)
      for (auto& r : shard_reads()) out.push_back(std::move(r));
    return out;
  }

  void on_done(size_t index, http::Response& response, http::Transport::FollowUps& more) {
    const auto [step, path] = sent_[index];
    switch (step) {
      case FetchStep::RepoInfo: take_info(response, more); break;
      case FetchStep::MetadataFile: take_file(path, response); break;
      case FetchStep::SingleFileHeader:
      case FetchStep::ShardHeader: take_first_read(path, response, more); break;
      case FetchStep::HeaderRest: take_rest(path, response, more); break;
    }
  }

  FetchedRound take() { return std::move(round_); }

 private:
  http::Request note(FetchStep step, const std::string& path, http::Request request) {
    sent_.emplace_back(step, path);
    return request;
  }
  void send(http::Transport::FollowUps& more, FetchStep step, const std::string& path, http::Request request) {
    more.send(note(step, path, std::move(request)));
  }
  std::string url(const std::string& path) const {
    return resolve_url(ref_, settings_, info_ ? info_->commit : ref_.revision, path);
  }
  http::Request first_request(FetchStep step, const std::string& path) const {
    if (step != FetchStep::MetadataFile) return header_read(url(path), std::max(probe_, kSingleFileProbe));
    http::Request r;
    r.url = url(path);
    r.max_body = path.ends_with(".index.json") ? kMaxHubIndexFile : kMaxHubSmallFile;
    r.stall_timeout_s = settings_.metadata_timeout();
    return r;
  }

  // The shard header reads the listing makes possible, sized from the index's length.
  std::vector<http::Request> shard_reads() {
    std::vector<http::Request> out;
    const FileEntry* index = listed(*info_, "model.safetensors.index.json");
    if (!index) return out;
    const size_t shards = static_cast<size_t>(std::count_if(info_->files.begin(), info_->files.end(), read_ahead_shard));
    const uint64_t probe = early_probe_bytes(probe_, index->size, shards);
    uint64_t planned = 0;
    for (const auto& f : info_->files) {
      if (!read_ahead_shard(f)) continue;
      const uint64_t length = std::min(probe, f.size);
      if (planned + length > kMostReadAhead) break;
      planned += length;
      out.push_back(note(FetchStep::ShardHeader, f.path, header_read(url(f.path), length)));
    }
    return out;
  }

  void take_info(http::Response& response, http::Transport::FollowUps& more) {
    round_.info = read_repo_info(response, ref_, settings_);
    if (!*round_.info || !(*round_.info)->sizes_known) return;  // the caller deals with it after the run
    info_ = **round_.info;
    for (auto& r : shard_reads()) more.send(std::move(r));
  }

  void remember_location(const std::string& path, const http::Response& r) {
    // Only a redirect's target: a mirror that serves the bytes itself has nothing to skip.
    if (r.redirects.empty() || http::origin_of(r.url) == http::origin_of(settings_.endpoint)) return;
    round_.cdn_locations.insert_or_assign(path, r.url);
  }

  void take_file(const std::string& path, http::Response& r) {
    const bool whole = r.status == 200 && !r.too_large && r.protocol_error.empty();
    const std::string commit = r.first_header("x-repo-commit");
    const bool kept = whole && !commit.empty() && sinks_.file && sinks_.file(commit, path, r);
    if (kept) round_.kept_files.insert(path);
    if (path == "model.safetensors.index.json" && whole) {
      round_.index = ParsedIndex{path, commit, parse_safetensors_index(r.body, path)};
      if (kept) std::string().swap(r.body);  // in the cache and parsed: the text has no more to give
    }
    round_.files[path] = std::move(r);
  }

  void take_first_read(const std::string& path, http::Response& r, http::Transport::FollowUps& more) {
    if (!answered_with_bytes(r)) {  // the loader asks again with what is left of the file's retries
      round_.failed_reads.insert_or_assign(path, std::move(r));
      return;
    }
    remember_location(path, r);
    HeaderRead& read = round_.headers[path];
    read.commit = r.first_header("x-repo-commit");
    read.bytes = std::move(r.body);
    if (!parse_if_whole(path, read)) send_rest(path, read, more);
  }

  // Parses a header whose bytes are all in; false when they are not (or nothing says yet).
  bool parse_if_whole(const std::string& path, HeaderRead& read) {
    const FileEntry* file = info_ ? listed(*info_, path) : nullptr;
    if (!file || read.commit != info_->commit) return false;
    auto n = read_safetensors_header_length({reinterpret_cast<const unsigned char*>(read.bytes.data()), read.bytes.size()}, path,
                                            file->size);
    if (!n || read.bytes.size() < 8 + *n) return false;
    read.bytes.resize(static_cast<size_t>(8 + *n));  // a probe also brings tensor bytes
    read.parsed = parse_safetensors_header({reinterpret_cast<const unsigned char*>(read.bytes.data()), read.bytes.size()}, path,
                                           file->size, dom_);
    read.parsed_for_size = file->size;
    if (sinks_.header) sinks_.header(read.commit, path, read.bytes);
    std::string().swap(read.bytes);
    return true;
  }

  // A header longer than its first read: the rest, from where the first read's bytes came.
  // `attempts` is what the file's budget leaves for it (0: the whole budget).
  void send_rest(const std::string& path, const HeaderRead& read, http::Transport::FollowUps& more, int attempts = 0) {
    const FileEntry* file = info_ ? listed(*info_, path) : nullptr;
    if (!file || read.commit != info_->commit) return;
    auto n = read_safetensors_header_length({reinterpret_cast<const unsigned char*>(read.bytes.data()), read.bytes.size()}, path,
                                            file->size);
    if (!n || 8 + *n <= read.bytes.size() || rest_bytes_ + (8 + *n - read.bytes.size()) > kMostHeaderRests) return;
    http::Request rest;
    auto cdn = round_.cdn_locations.find(path);
    rest.url = cdn == round_.cdn_locations.end() ? url(path) : cdn->second;
    rest.range_offset = read.bytes.size();
    rest.range_length = 8 + *n - read.bytes.size();
    rest.max_attempts = attempts;
    rest_bytes_ += rest.range_length;
    send(more, FetchStep::HeaderRest, path, std::move(rest));
  }

  void take_rest(const std::string& path, http::Response& r, http::Transport::FollowUps& more) {
    HeaderRead& read = round_.headers[path];
    if (answered_with_bytes(r)) {
      read.bytes += r.body;
      parse_if_whole(path, read);
      return;
    }
    // A signed URL can expire, or a CDN refuse it: once more through the Hub's redirect, within
    // what the file's budget leaves.
    const int left = attempts_left(settings_, r.attempts);
    if (round_.cdn_locations.erase(path) > 0 && left > 0) return send_rest(path, read, more, left);
    round_.failed_reads.insert_or_assign(path, std::move(r));
  }

  const RepoRef& ref_;
  const HubSettings& settings_;
  uint64_t probe_;
  const PlanSinks& sinks_;
  std::optional<RepoInfo> info_;
  std::vector<std::pair<FetchStep, std::string>> sent_;  // by request index
  uint64_t rest_bytes_ = 0;
  JsonDom dom_;  // every header of the run is parsed with it
  FetchedRound round_;
};

}  // namespace

http::Request repo_info_request(const RepoRef& ref, const HubSettings& settings) {
  http::Request r;
  r.url = settings.endpoint + "/api/models/" + ref.repo_id + "/revision/" + http::encode_component(ref.revision) + "?blobs=true";
  r.max_body = kMaxInfoBytes;
  r.stall_timeout_s = settings.metadata_timeout();
  return r;
}

Result<RepoInfo> read_repo_info(const http::Response& response, const RepoRef& ref, const HubSettings& settings) {
  if (response.status != 200) return hub_error(response, ref, settings, "repository info");
  if (response.too_large)
    return malformed(response.url, "", "the repository info is larger than " + std::to_string(kMaxInfoBytes >> 20) +
                                           " MiB, the most hfinspect reads of it");
  return parse_repo_info(response.body, response.url);
}

Status fill_sizes_from_tree(RepoInfo& info, const RepoRef& ref, const HubSettings& settings, http::Transport& transport) {
  std::string url = settings.endpoint + "/api/models/" + ref.repo_id + "/tree/" + info.commit + "?recursive=true";
  std::vector<FileEntry> files;
  for (size_t page = 0; !url.empty(); ++page) {
    if (page == kMaxTreePages) return malformed(url, "Link", "tree listing goes on for more than 1000 pages");
    http::Request request;
    request.url = url;
    request.max_body = kMaxInfoBytes;
    request.stall_timeout_s = settings.metadata_timeout();
    auto response = transport.perform({request}, "file listing").front();
    if (response.status != 200) return hub_error(response, ref, settings, "file listing");
    if (response.too_large)
      return malformed(url, "", "a page of the file listing is larger than " + std::to_string(kMaxInfoBytes >> 20) +
                                    " MiB, the most hfinspect reads of it");
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

Result<RepoInfo> fetch_repo_info(const RepoRef& ref, const HubSettings& settings, http::Transport& transport) {
  auto info = read_repo_info(transport.perform({repo_info_request(ref, settings)}, "repository info").front(), ref, settings);
  if (info && !info->sizes_known) {
    auto filled = fill_sizes_from_tree(*info, ref, settings, transport);
    if (!filled) return filled.error();
  }
  return info;
}

std::string resolve_url(const RepoRef& ref, const HubSettings& settings, const std::string& revision, const std::string& path) {
  return settings.endpoint + "/" + ref.repo_id + "/resolve/" + http::encode_component(revision) + "/" + http::encode_path(path);
}

int attempts_left(const HubSettings& settings, int spent) { return std::max(0, settings.retries + 1 - spent); }

uint64_t early_probe_bytes(uint64_t default_probe, uint64_t index_bytes, size_t shards) {
  // The index names every tensor once, with its shard's file name; a header names it with its
  // dtype, shape and offsets, which take more room. Over the 27 sharded repositories under
  // fixtures/, the longest shard header is 1.3-1.6 times the index's bytes per shard in 21 and
  // up to 31 times in the rest, whose tensors crowd into a few shards; with 1.8 times and the
  // default as a floor, every header of 26 of them fits its first read. A longer header still
  // gets a second read.
  constexpr uint64_t kMostEarlyProbe = uint64_t{8} << 20;
  if (shards == 0) return default_probe;
  // The listing's sizes come from the server: a per-shard share past the cap is not multiplied.
  const uint64_t per_shard = std::min(index_bytes / shards, kMostEarlyProbe);
  return std::max(default_probe, std::min(per_shard / 5 * 9 + 8, kMostEarlyProbe));
}

FetchedRound run_fetch_plan(const RepoRef& ref, const HubSettings& settings, http::Transport& transport,
                            const std::optional<RepoInfo>& known, uint64_t header_probe_bytes, const PlanSinks& sinks) {
  PlanRun plan(ref, settings, known, header_probe_bytes, sinks);
  transport.run(plan.first_requests(), "repository files",
                [&plan](size_t i, http::Response& r, http::Transport::FollowUps& more) { plan.on_done(i, r, more); });
  return plan.take();
}

}  // namespace hfi
