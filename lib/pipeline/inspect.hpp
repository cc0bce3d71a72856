// The pipeline, one step after the other: resolve the target the user named, load what it holds
// (a directory in place; a repository from the Hugging Face cache or the Hub), analyse it, and
// return the Report the renderers print. Nothing here runs concurrently: that is the transport's.
#pragma once

#include <filesystem>
#include <string>

#include "http/http.hpp"
#include "report/report.hpp"
#include "source/hf_cache.hpp"
#include "source/hub_settings.hpp"
#include "source/snapshot.hpp"

namespace hfi {

enum class TargetKind { Directory, Repository };

// What a command-line target names.
struct Target {
  TargetKind kind = TargetKind::Directory;
  std::filesystem::path directory;  // Directory
  RepoRef repo;                     // Repository: id and revision
  // Set when the user named a snapshot folder of a Hugging Face cache: the repository is read from
  // that cache, offline, never from the Hub.
  std::filesystem::path cache_dir;
  bool needs_hub(bool offline) const { return kind == TargetKind::Repository && !offline && cache_dir.empty(); }
};

struct InspectOptions {
  ReportOptions report;  // --ctx, --kv-dtype; the repo id and revision come from the target
  std::string revision;  // --revision: overrides one in the target (repositories only)
  HubSettings hub;       // the environment's and the flags' settings
  LoadOptions load;
  // --base: the base model of a PEFT adapter (a directory or a repository id). Without it, a
  // repository's adapter is checked against the base its adapter_config.json names.
  std::string base;
};

// A directory is read in place, except a cache snapshot folder (<cache>/models--org--name/
// snapshots/<commit>), which is read as that commit of the cache; anything else must be a repository id (org/name[@revision], or
// a Hub URL). A file is a usage error.
Result<Target> resolve_target(const std::string& text, const std::string& revision);

// The snapshot of a resolved target. `transport` is only used for a repository, and may be null
// when `options.hub.offline` is set.
Result<Snapshot> load_target(const Target& target, const InspectOptions& options, http::Transport* transport);

// load -> analyse, for a resolved target.
Result<Report> inspect(const Target& target, const InspectOptions& options, http::Transport* transport);

}  // namespace hfi
