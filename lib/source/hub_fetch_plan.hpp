// The Hub fetch plan: every request a cold read of a repository makes, what each one waits for,
// and the one transport run that carries them all. Requests go out the moment what they need is
// in, so the plan costs three latency rounds whatever the number of shards:
//
//   round  request                                          sent when
//   1      repository info (pins the commit, lists sizes)    at the start
//   1      config.json, generation_config.json,              at the start (absent ones cost a
//          tokenizer_config.json, the index, the              quiet 404 each)
//          quantization side-cars
//   1      model.safetensors's header, up to 512 KiB         at the start (a sharded repo 404s)
//   2-3    each listed shard's header, read-ahead sized      when the repository info answers
//          from the index's length (Hub 302, then CDN 206)
//   4      the rest of a header longer than its first read,  when that first read answers
//          straight to the CDN address it came from
//
// The index and each shard header are parsed the moment they are whole, inside the run: the
// waits for the other answers pay for the parsing.
//
// kFetchPlan below is that table; run_fetch_plan() follows it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "formats/safetensors_header.hpp"
#include "formats/safetensors_index.hpp"
#include "http/http.hpp"
#include "source/hf_cache.hpp"
#include "source/hub_settings.hpp"
#include "source/repo_info.hpp"

namespace hfi {

// Largest config-like JSON file and largest safetensors index read from the Hub.
inline constexpr uint64_t kMaxHubSmallFile = 16u << 20;
inline constexpr uint64_t kMaxHubIndexFile = 64u << 20;

enum class FetchStep : uint8_t { RepoInfo, MetadataFile, SingleFileHeader, ShardHeader, HeaderRest };
enum class SentWhen : uint8_t { AtStart, InfoAnswered, FirstReadAnswered };

struct PlannedRequest {
  FetchStep step;
  SentWhen when;
  std::span<const char* const> paths;  // the files it names; empty: the listing decides
  const char* what;                    // for progress lines and errors
};

inline constexpr const char* kMetadataFiles[] = {
    "config.json",          "generation_config.json", "tokenizer_config.json", "model.safetensors.index.json",
    "quantize_config.json", "hf_quant_config.json",
};
inline constexpr const char* kSingleFile[] = {"model.safetensors"};

inline constexpr PlannedRequest kFetchPlan[] = {
    {FetchStep::RepoInfo, SentWhen::AtStart, {}, "repository info"},
    {FetchStep::MetadataFile, SentWhen::AtStart, kMetadataFiles, "metadata files"},
    {FetchStep::SingleFileHeader, SentWhen::AtStart, kSingleFile, "single-file header"},
    {FetchStep::ShardHeader, SentWhen::InfoAnswered, {}, "shard headers"},
    {FetchStep::HeaderRest, SentWhen::FirstReadAnswered, {}, "rest of a long header"},
};

// A header read of the plan: the bytes from offset 0, until the header is whole; then the header
// parsed, while the other reads were still on their way (the bytes went to `HeaderSink`).
struct HeaderRead {
  std::string commit;  // X-Repo-Commit of the Hub's answer
  std::string bytes;   // empty once parsed
  std::optional<Result<SafetensorsHeader>> parsed;
  uint64_t parsed_for_size = 0;  // the file size the parse was checked against
};

// The index, parsed as soon as it arrived.
struct ParsedIndex {
  std::string path;
  std::string commit;
  Result<SafetensorsIndex> index;
};

// What the plan's run brought back.
struct FetchedRound {
  std::optional<Result<RepoInfo>> info;          // absent when the info was known beforehand
  std::map<std::string, http::Response> files;   // the metadata files' answers, by path
  std::set<std::string> kept_files;              // of those, the ones the file sink kept
  std::map<std::string, HeaderRead> headers;     // header reads that succeeded, by path
  // Header reads that failed, by path: a later read of the file has what their retries left.
  std::map<std::string, http::Response> failed_reads;
  std::optional<ParsedIndex> index;
  // Where a file's bytes came from when the Hub sent its read elsewhere (the CDN's signed URL):
  // a later range of the same file goes there directly, one round trip instead of two.
  std::map<std::string, std::string> cdn_locations;
};

// The request for the repository info at `ref.revision`, with sizes (blobs=true).
http::Request repo_info_request(const RepoRef& ref, const HubSettings& settings);

// The answer to repo_info_request(): the parsed info, or what the failure means to the user.
// Sizes may still be unknown (a mirror without blobs=true): fill_sizes_from_tree() asks for them.
Result<RepoInfo> read_repo_info(const http::Response& response, const RepoRef& ref, const HubSettings& settings);

// The tree API's pages, for mirrors whose info lacks sizes.
Status fill_sizes_from_tree(RepoInfo& info, const RepoRef& ref, const HubSettings& settings, http::Transport& transport);

// One request (and the tree's pages if needed): the repository info at `ref.revision`.
Result<RepoInfo> fetch_repo_info(const RepoRef& ref, const HubSettings& settings, http::Transport& transport);

// The URL of a file at `revision`.
std::string resolve_url(const RepoRef& ref, const HubSettings& settings, const std::string& revision, const std::string& path);

// Attempts left to a file whose reads so far made `spent` (one budget per file, however many
// requests it takes).
int attempts_left(const HubSettings& settings, int spent);

// How many bytes the header reads sent ahead ask of each shard: `default_probe`, or more when the
// index (`index_bytes` long, over `shards` root-level shards) suggests longer headers.
uint64_t early_probe_bytes(uint64_t default_probe, uint64_t index_bytes, size_t shards);

// Takes each whole header's bytes (its 8-byte length and the header) as it is parsed: the cache's
// header pack is written as they come, rather than held until the end.
using HeaderSink = std::function<void(const std::string& commit, const std::string& path, std::string_view bytes)>;
// Takes each metadata file answered in full (200) as it arrives, for the commit its answer names;
// true when it was kept (written to the cache). The plan then lets go of a kept index's text the
// moment it is parsed: at 46 MB it would otherwise sit beside its parse while the headers come.
using FileSink = std::function<bool(const std::string& commit, const std::string& path, const http::Response& response)>;

// What the plan hands on as it goes.
struct PlanSinks {
  HeaderSink header;
  FileSink file;
};

// Runs the plan for `ref` in one transport run. With `known` (repository info fetched earlier
// this run), the info is not asked again and the shard reads leave at the start.
FetchedRound run_fetch_plan(const RepoRef& ref, const HubSettings& settings, http::Transport& transport,
                            const std::optional<RepoInfo>& known, uint64_t header_probe_bytes, const PlanSinks& sinks);

}  // namespace hfi
