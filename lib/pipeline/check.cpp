#include "pipeline/check.hpp"

#include "pipeline/findings.hpp"

namespace hfi {

void add_target(CheckResult& result, const std::string& name, const Result<Report>& report, const Baseline& baseline) {
  if (!report) {
    result.targets.push_back({name, "", {}, report.error()});
    ++result.failed_targets;
    return;
  }
  TargetCheck target{report->repo_id, report->commit, {}, std::nullopt};
  for (Finding& f : collect_findings(*report)) {
    bool selected = result.fail_on.count(f.kind) > 0;
    bool in_baseline = baseline.accepts(target.repo, f.key());
    if (selected && !in_baseline) ++result.new_findings;
    target.findings.push_back({std::move(f), selected, in_baseline});
  }
  result.targets.push_back(std::move(target));
}

Baseline baseline_of(const CheckResult& result) {
  Baseline b;
  for (const auto& t : result.targets)
    for (const auto& c : t.findings)
      if (c.selected) b.accepted.insert({t.repo, c.finding.key()});
  return b;
}

}  // namespace hfi
