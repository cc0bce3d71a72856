#include "pipeline/inspect.hpp"

#include <system_error>

#include "pipeline/analyse.hpp"
#include "source/local_source.hpp"
#include "source/open_repo.hpp"

namespace hfi {

Result<Target> resolve_target(const std::string& text, const std::string& revision) {
  namespace fs = std::filesystem;
  std::error_code ec;
  Target target;
  if (fs::is_directory(text, ec)) {
    if (!revision.empty()) return Error{ErrorKind::Usage, "--revision", "", "applies to repository ids, not directories", {}};
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
