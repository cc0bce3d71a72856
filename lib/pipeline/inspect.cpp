#include "pipeline/inspect.hpp"

#include <system_error>

#include "pipeline/analyse.hpp"
#include "source/local_source.hpp"
#include "source/open_repo.hpp"

namespace hfi {
namespace {

// hfinspect keeps the shards' headers beside the snapshot (the cache's header pack), not as files in
// it, so a snapshot folder read in place would miss them and fall back to the config's formula.
bool as_cache_snapshot(const std::string& text, Target& target) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = fs::absolute(text, ec).lexically_normal();
  if (ec) return false;
  if (dir.filename().empty()) dir = dir.parent_path();
  const std::string commit = dir.filename().string();
  const fs::path snapshots = dir.parent_path();
  const std::string folder = snapshots.parent_path().filename().string();
  const std::string prefix = "models--";
  if (!is_commit_sha(commit) || snapshots.filename() != "snapshots" || folder.rfind(prefix, 0) != 0 || folder.size() == prefix.size())
    return false;
  std::string repo_id = folder.substr(prefix.size());
  for (size_t at = repo_id.find("--"); at != std::string::npos; at = repo_id.find("--", at + 1)) repo_id.replace(at, 2, "/");
  if (!parse_repo_ref(repo_id)) return false;
  target.kind = TargetKind::Repository;
  target.repo = RepoRef{repo_id, commit};
  target.cache_dir = snapshots.parent_path().parent_path();
  return true;
}

}  // namespace

Result<Target> resolve_target(const std::string& text, const std::string& revision) {
  namespace fs = std::filesystem;
  std::error_code ec;
  Target target;
  if (fs::is_directory(text, ec)) {
    if (!revision.empty()) return Error{ErrorKind::Usage, "--revision", "", "applies to repository ids, not directories", {}};
    if (as_cache_snapshot(text, target)) return target;
    target.directory = text;
    return target;
  }
  if (fs::exists(text, ec))
    return Error{ErrorKind::Usage, text, "", "is a file; give the directory that holds the model's files", {}};
  auto ref = parse_repo_ref(text);
  if (!ref) return ref.error();
  if (!revision.empty()) ref->revision = revision;
  target.kind = TargetKind::Repository;
  target.repo = std::move(ref.value());
  return target;
}

Result<Snapshot> load_target(const Target& target, const InspectOptions& options, http::Transport* transport) {
  if (target.kind == TargetKind::Directory) {
    LocalSource source(target.directory);
    return load_snapshot(source, options.load);
  }
  if (!target.cache_dir.empty()) {
    HubSettings cache_only = options.hub;
    cache_only.cache_dir = target.cache_dir;
    cache_only.offline = true;
    return load_repo(target.repo, cache_only, nullptr, options.load);
  }
  return load_repo(target.repo, options.hub, options.hub.offline ? nullptr : transport, options.load);
}

Result<Report> inspect(const Target& target, const InspectOptions& options, http::Transport* transport) {
  ReportOptions report = options.report;
  if (target.kind == TargetKind::Directory) {
    report.repo_id = target.directory.lexically_normal().string();
  } else {
    report.repo_id = target.repo.repo_id;
    report.revision = target.repo.revision;
  }
  auto snapshot = load_target(target, options, transport);
  if (!snapshot) return snapshot.error();
  if (snapshot->adapter) {
    // The base's config, from --base or, for a repository, the id the adapter names.
    std::string base = options.base;
    if (base.empty() && target.kind == TargetKind::Repository && !snapshot->adapter->base_model.empty())
      base = snapshot->adapter->base_model;
    if (!base.empty()) {
      auto base_target = resolve_target(base, "");
      auto base_snapshot = base_target ? load_target(*base_target, options, transport) : Result<Snapshot>(base_target.error());
      if (base_snapshot && base_snapshot->config) report.adapter_base = std::move(base_snapshot->config);
      else
        snapshot->notes.push_back("the base model " + base + " could not be read" +
                                  (base_snapshot ? std::string(" (no config.json)") : ": " + base_snapshot.error().describe()));
    }
  }
  return build_report(std::move(*snapshot), report);
}

}  // namespace hfi
