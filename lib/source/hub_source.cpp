#include "source/hub_source.hpp"

#include <algorithm>

#include "core/checked.hpp"
#include "core/text.hpp"
#include "formats/safetensors_header.hpp"
#include "http/url.hpp"
#include "source/blob_id.hpp"
#include "source/hub_errors.hpp"

namespace hfi {
namespace {


std::string normalized_etag(std::string etag) {
  if (etag.rfind("W/", 0) == 0) etag = etag.substr(2);
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') etag = etag.substr(1, etag.size() - 2);
  return etag;
}

std::string cache_failure_note(const HubCache& cache) {
  return "could not write to the cache at " + cache.repo_dir().string() + "; the next run will fetch again";
}

uint64_t file_limit(const std::string& path) { return path.ends_with(".index.json") ? kMaxHubIndexFile : kMaxHubSmallFile; }

}  // namespace

HubSource::HubSource(RepoRef ref, HubSettings settings, http::Transport& transport, HubCache* cache, uint64_t header_probe_bytes)
    : ref_(std::move(ref)), settings_(std::move(settings)), transport_(transport), cache_(cache), probe_bytes_(header_probe_bytes) {}

std::string HubSource::location() const { return settings_.endpoint + "/" + ref_.repo_id; }

std::string HubSource::file_url(const std::string& path) const {
  return resolve_url(ref_, settings_, info_.commit.empty() ? ref_.revision : info_.commit, path);
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
  const bool info_known = known.has_value();
  if (known) info_ = std::move(*known);
  const PlanSinks sinks{
      [this](const std::string& commit, const std::string& path, std::string_view bytes) { pack_header(commit, path, bytes); },
      [this](const std::string& commit, const std::string& path, const http::Response& r) { return store_answer(commit, path, r); }};
  auto round = run_fetch_plan(ref_, settings_, transport_, info_known ? std::optional<RepoInfo>(info_) : std::nullopt, probe_bytes_,
                              sinks);
  auto taken = take_round(std::move(round), info_known);
  if (!taken) return taken;
  if (cache_) {
    if (!cache_->store_listing(info_.commit, info_.files)) cache_failed();
    if (ref_.revision != info_.commit && !cache_->store_ref(ref_.revision, info_.commit)) cache_failed();
  }
  return Ok{};
}

// The plan's answers: the info pins the commit; files answered for another commit (a branch that
// moved between two requests) are asked again.
Status HubSource::take_round(FetchedRound round, bool info_known) {
  if (!info_known) {
    if (!round.info) return malformed(location(), "", "the repository info was never asked for");
    if (!*round.info) return round.info->error();
    info_ = std::move(round.info->value());
    if (!info_.sizes_known) {
      auto filled = fill_sizes_from_tree(info_, ref_, settings_, transport_);
      if (!filled) return filled.error();
    }
  }
  read_ahead_ = std::move(round.headers);
  failed_reads_ = std::move(round.failed_reads);
  parsed_index_ = std::move(round.index);
  cdn_locations_ = std::move(round.cdn_locations);
  std::vector<std::string> stale;
  for (auto& [path, response] : round.files) {
    std::string commit = response.first_header("x-repo-commit");
    if (!commit.empty() && commit != info_.commit) {
      stale.push_back(path);
      continue;
    }
    auto file = take_file(path, response, round.kept_files.count(path) > 0);
    if (!file) return file.error();
    prefetched_[path] = std::move(file.value());
  }
  for (const auto& path : stale) {
    auto again = read_file(path, file_limit(path));
    if (!again) return again.error();
    prefetched_[path] = std::move(again.value());
  }
  return Ok{};
}

Result<std::optional<std::string>> HubSource::take_file(const std::string& path, http::Response& r, bool in_cache) {
  if (r.status == 404) {
    // Absent means the Hub itself said EntryNotFound (or a mirror's bare 404 with no redirect in
    // between) for a file the listing does not name. A 404 further down a redirect chain, or for
    // a listed file, is a fault on the way: remembering it as absent would poison the cache.
    auto code = r.headers.find("x-error-code");
    bool entry_not_found = (code != r.headers.end() && code->second == "EntryNotFound") || r.redirects.empty();
    if (entry_not_found && !listed(path)) {
      if (cache_ && r.first_header("x-repo-commit") == info_.commit) cache_->store_missing(info_.commit, path);
      return std::optional<std::string>{};
    }
    return Error{ErrorKind::Network, r.url, "",
                 "the server answered 404 for " + path + ", which the repository listing names" +
                     (r.request_id().empty() ? std::string() : " (request id " + r.request_id() + ")"),
                 "try again; if it persists, the Hub or mirror at " + settings_.endpoint + " is inconsistent"};
  }
  if (r.status != 200) return hub_error(r, ref_, settings_, path);
  if (r.too_large) return malformed(path, "", "is larger than hfinspect reads for a metadata file");
  if (!in_cache) store_answer(info_.commit, path, r);
  return std::optional<std::string>(std::move(r.body));
}

bool HubSource::store_answer(const std::string& commit, const std::string& path, const http::Response& r) {
  if (!cache_) return false;
  std::string etag = normalized_etag(r.first_header("x-linked-etag"));
  if (etag.empty()) etag = normalized_etag(r.first_header("etag"));
  // The cache names a blob by its hash: bytes that do not hash to the name the Hub gave are not
  // what it says they are, and are not kept (a read would refuse them anyway).
  if (!bytes_match_etag(r.body, etag)) {
    if (etag.size() == 40 || etag.size() == 64)
      notes_.push_back(path + ": the bytes received do not hash to the ETag the server gave (" + etag +
                       "); they were used for this report but not kept in the cache");
    return false;
  }
  if (cache_->store_file(commit, path, etag, r.body)) return true;
  if (!etag.empty()) cache_failed();
  return false;
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
  request.stall_timeout_s = settings_.metadata_timeout();
  auto response = transport_.perform({request}, path).front();
  return take_file(path, response);
}

void HubSource::prefetch(const std::vector<std::string>& files, const std::vector<RangeRequest>& header_reads) {
  std::vector<http::Request> batch;
  std::vector<std::string> paths;
  std::vector<bool> is_header;
  for (const auto& path : files) {
    if (!listed(path) || prefetched_.count(path)) continue;
    http::Request r;
    r.url = file_url(path);
    r.max_body = kMaxHubSmallFile;
    r.stall_timeout_s = settings_.metadata_timeout();
    batch.push_back(std::move(r));
    paths.push_back(path);
    is_header.push_back(false);
  }
  for (const auto& rr : header_reads) {
    if (!listed(rr.path) || read_ahead_.count(rr.path)) continue;
    http::Request r;
    r.url = file_url(rr.path);
    r.range_offset = rr.offset;
    r.range_length = rr.length;
    r.length_prefixed = rr.length_prefixed;
    batch.push_back(std::move(r));
    paths.push_back(rr.path);
    is_header.push_back(true);
  }
  if (batch.empty()) return;
  // What fails here is left out: the loader's own read asks again, and reports the failure.
  transport_.run(std::move(batch), "component files", [&](size_t j, http::Response& r, http::Transport::FollowUps&) {
    if (is_header[j]) {
      if ((r.status == 200 || r.status == 206) && r.protocol_error.empty() && r.first_header("x-repo-commit") == info_.commit)
        read_ahead_[paths[j]] = HeaderRead{info_.commit, std::move(r.body), std::nullopt, 0};
      return;
    }
    if (r.status != 200 || r.too_large) return;
    auto taken = take_file(paths[j], r);
    if (taken) prefetched_[paths[j]] = std::move(taken.value());
  });
}

std::optional<Result<SafetensorsIndex>> HubSource::take_parsed_index(const std::string& path) {
  if (!parsed_index_ || parsed_index_->path != path || parsed_index_->commit != info_.commit) return std::nullopt;
  auto it = prefetched_.find(path);
  if (it == prefetched_.end() || !it->second) return std::nullopt;  // answered for another commit, asked again
  prefetched_.erase(it);  // the bytes are in the cache already; the parse replaces them
  Result<SafetensorsIndex> index = std::move(parsed_index_->index);
  parsed_index_.reset();
  return index;
}

std::optional<Result<SafetensorsHeader>> HubSource::take_parsed_header(const std::string& path, uint64_t file_size) {
  auto it = read_ahead_.find(path);
  if (it == read_ahead_.end() || it->second.commit != info_.commit || !it->second.parsed || it->second.parsed_for_size != file_size)
    return std::nullopt;
  Result<SafetensorsHeader> header = std::move(*it->second.parsed);  // its bytes are in the pack already
  read_ahead_.erase(it);
  return header;
}

void HubSource::pack_header(const std::string& commit, const std::string& path, std::string_view bytes) {
  if (!cache_) return;
  if (!pack_) pack_ = std::make_unique<HeaderPackWriter>(*cache_, commit);
  if (!pack_->add(path, bytes)) cache_failed();
}

void HubSource::keep_header(const std::string& path, std::string bytes) {
  if (!cache_ || bytes.size() < 8) return;
  if (path.ends_with(".gguf")) {  // handed back up to the data section: the header alone
    pack_header(info_.commit, path, bytes);
    return;
  }
  // Keep the 8-byte length and the header, not the tensor bytes a probe also brought.
  auto n = read_u64_le({reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()});
  if (!n || *n > kMaxSafetensorsHeader) return;
  pack_header(info_.commit, path, std::string_view(bytes).substr(0, static_cast<size_t>(std::min<uint64_t>(bytes.size(), 8 + *n))));
}

void HubSource::save_headers() {
  if (!cache_) return;
  if (!pack_) pack_ = std::make_unique<HeaderPackWriter>(*cache_, info_.commit);
  if (!pack_->commit()) cache_failed();
  pack_.reset();
}

bool HubSource::serve_read_ahead(const RangeRequest& rr, std::optional<Result<std::string>>& slot) {
  auto it = read_ahead_.find(rr.path);
  if (rr.offset != 0 || it == read_ahead_.end() || it->second.commit != info_.commit) return false;
  if (it->second.parsed) return false;  // its bytes went to the pack: take_parsed_header() has it
  std::string bytes = std::move(it->second.bytes);
  read_ahead_.erase(it);  // served once: a second read of the file goes to the network
  auto n = read_u64_le({reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()});
  const bool whole_header = n && *n <= kMaxSafetensorsHeader && bytes.size() >= 8 + *n;
  if (bytes.size() < rr.length && !whole_header) return false;
  // A read sized from the index may bring more of a header than asked: all of it is handed over.
  if (bytes.size() > rr.length && !rr.length_prefixed) bytes.resize(static_cast<size_t>(rr.length));
  slot = std::move(bytes);
  return true;
}

Result<std::string> HubSource::take_range(const RangeRequest& rr, http::Response& r) {
  if (!r.protocol_error.empty()) return malformed(r.url, "Content-Range", "the server " + r.protocol_error);
  if (r.status == 416)
    return malformed(rr.path, "bytes " + std::to_string(rr.offset) + "+", "the server says this range lies past the end of the file");
  if (r.status != 200 && r.status != 206) return hub_error(r, ref_, settings_, rr.path);
  if (auto linked = parse_decimal(r.first_header("x-linked-size"))) {
    for (const auto& f : info_.files)
      if (f.path == rr.path && f.size != *linked)
        notes_.push_back(rr.path + ": the listing gives " + std::to_string(f.size) + " bytes, the Hub's redirect " +
                         std::to_string(*linked));
  }
  return std::move(r.body);
}

std::vector<Result<std::string>> HubSource::read_ranges(const std::vector<RangeRequest>& requests) {
  std::vector<std::optional<Result<std::string>>> slots(requests.size());
  std::vector<http::Request> batch;
  std::vector<size_t> owner;  // by request of the run (resent ones too): the slot it answers
  std::vector<bool> to_cdn;   // sent straight to a remembered CDN location
  for (size_t i = 0; i < requests.size(); ++i) {
    const auto& rr = requests[i];
    if (serve_read_ahead(rr, slots[i])) continue;
    http::Request r;
    // A file whose read-ahead failed has only what that read's retries left.
    if (auto failed = failed_reads_.find(rr.path); failed != failed_reads_.end()) {
      r.max_attempts = attempts_left(settings_, failed->second.attempts);
      if (r.max_attempts == 0) {
        http::Response answer = failed->second;
        slots[i] = take_range(rr, answer);
        continue;
      }
    }
    auto known = cdn_locations_.find(rr.path);
    r.url = known != cdn_locations_.end() ? known->second : file_url(rr.path);
    r.range_offset = rr.offset;
    r.range_length = rr.length;
    r.length_prefixed = rr.length_prefixed;
    to_cdn.push_back(known != cdn_locations_.end());
    batch.push_back(std::move(r));
    owner.push_back(i);
  }
  std::vector<std::optional<http::Response>> answers(requests.size());
  const std::vector<http::Request> sent = batch;
  transport_.run(std::move(batch), "shard headers", [&](size_t j, http::Response& r, http::Transport::FollowUps& more) {
    const size_t i = owner[j];
    // A signed URL can expire, or a CDN refuse it: that read goes through the Hub after all,
    // within what the file's budget leaves.
    const bool refused_by_cdn = j < to_cdn.size() && to_cdn[j] && r.status != 200 && r.status != 206 && r.status != 416;
    const int budget = refused_by_cdn && sent[j].max_attempts > 0 ? sent[j].max_attempts : settings_.retries + 1;
    if (refused_by_cdn && budget > r.attempts) {
      cdn_locations_.erase(requests[i].path);
      http::Request again = sent[j];
      again.url = file_url(requests[i].path);
      again.max_attempts = budget - r.attempts;
      owner.push_back(i);
      more.send(std::move(again));
      return;
    }
    answers[i] = std::move(r);
  });
  for (size_t i = 0; i < requests.size(); ++i)
    if (answers[i]) slots[i] = take_range(requests[i], *answers[i]);
  std::vector<Result<std::string>> out;
  out.reserve(slots.size());
  for (auto& s : slots) out.push_back(std::move(*s));
  return out;
}

}  // namespace hfi
