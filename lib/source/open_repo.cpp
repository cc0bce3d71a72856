#include "source/open_repo.hpp"

#include "source/hub_cache.hpp"
#include "source/hub_source.hpp"

namespace hfi {
namespace {

// Reads one commit from the cache; nullopt when anything needed is missing.
std::optional<Snapshot> load_cached(CachedSource& source, const LoadOptions& options, std::vector<std::string>* misses = nullptr,
                                    std::optional<Error>* failure = nullptr) {
  auto snapshot = load_snapshot(source, options);
  if (misses) *misses = source.misses();
  if (!snapshot) {
    if (failure) *failure = snapshot.error();
    return std::nullopt;
  }
  if (!source.misses().empty()) return std::nullopt;
  for (const auto& note : source.notes()) snapshot->notes.push_back(note);
  return std::move(snapshot.value());
}

Result<Snapshot> load_offline(const HubCache& cache, const RepoRef& ref, const LoadOptions& options) {
  std::string commit = ref.revision;
  if (!is_commit_sha(commit)) {
    auto cached = cache.read_ref(ref.revision);
    if (!cached)
      return not_found(cache.repo_dir().string(), "offline, and revision '" + ref.revision + "' of " + ref.repo_id + " is not in the cache",
                       "run once without --offline / HF_HUB_OFFLINE, or give a cached commit sha");
    commit = *cached;
  }
  std::vector<std::string> misses;
  std::optional<Error> failure;
  CachedSource source(cache, ref.repo_id, commit, CachedSource::Listing::OrFolder);
  if (auto snapshot = load_cached(source, options, &misses, &failure)) return std::move(*snapshot);
  if (!misses.empty()) {
    std::string list;
    for (size_t i = 0; i < misses.size() && i < 5; ++i) list += (i ? ", " : "") + misses[i];
    if (misses.size() > 5) list += " and " + std::to_string(misses.size() - 5) + " more";
    return not_found(cache.snapshot_dir(commit).string(),
                     "offline, and the cache of " + ref.repo_id + " at " + commit + " lacks " + list,
                     "run once without --offline / HF_HUB_OFFLINE to fetch the metadata");
  }
  return *failure;
}

}  // namespace

Result<Snapshot> load_repo(const RepoRef& ref, const HubSettings& settings, http::Transport* transport, const LoadOptions& options) {
  HubCache cache(settings.cache_dir, ref.repo_id);
  if (settings.offline || !transport) return load_offline(cache, ref, options);

  std::optional<RepoInfo> known;
  // A commit's cache is read only when an earlier run completed it: a partial one would be
  // parsed and then thrown away for the Hub's copy.
  if (is_commit_sha(ref.revision) && cache.holds_complete_read(ref.revision)) {
    CachedSource source(cache, ref.repo_id, ref.revision);
    if (auto snapshot = load_cached(source, options)) return std::move(*snapshot);
  } else if (auto cached_commit = cache.read_ref(ref.revision)) {
    // Seen before: one request tells whether the branch still points at a cached commit.
    auto info = fetch_repo_info(ref, settings, *transport);
    if (!info) {
      // The Hub is out of reach: what the cache holds for this branch beats no answer, as
      // huggingface_hub also falls back. Access errors (gated, private) are not papered over.
      if (info.error().kind != ErrorKind::Network) return info.error();
      if (!cache.holds_complete_read(*cached_commit)) return info.error();
      CachedSource source(cache, ref.repo_id, *cached_commit);
      auto snapshot = load_cached(source, options);
      if (!snapshot) return info.error();
      snapshot->notes.push_back("could not reach the Hub (" + info.error().message + "); this is the cached commit " +
                                *cached_commit + " of " + ref.revision + ", which may be out of date");
      return std::move(*snapshot);
    }
    if (cache.holds_complete_read(info->commit)) {
      CachedSource source(cache, ref.repo_id, info->commit, info->files);
      if (auto snapshot = load_cached(source, options)) {
        if (info->commit != *cached_commit) cache.store_ref(ref.revision, info->commit);
        return std::move(*snapshot);
      }
    }
    known = std::move(info.value());
  }
  HubSource hub(ref, settings, *transport, &cache, options.header_probe_bytes);
  auto opened = hub.open(std::move(known));
  if (!opened) return opened.error();
  auto snapshot = load_snapshot(hub, options);
  if (!snapshot) return snapshot.error();
  hub.save_headers();
  for (const auto& note : hub.notes()) snapshot->notes.push_back(note);
  return snapshot;
}

}  // namespace hfi
