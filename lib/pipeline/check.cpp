#include "pipeline/check.hpp"

#include "pipeline/findings.hpp"

namespace hfi {

CheckResult check_reports(std::span<const Report> reports, const std::set<FindingKind>& fail_on, const Baseline& baseline) {
  CheckResult result;
  result.fail_on = fail_on;
  for (const Report& report : reports) {
    TargetCheck target{report.repo_id, report.commit, {}};
    for (Finding& f : collect_findings(report)) {
      bool selected = fail_on.count(f.kind) > 0;
      bool in_baseline = baseline.accepts(target.repo, f.key());
      if (selected && !in_baseline) ++result.new_findings;
      target.findings.push_back({std::move(f), selected, in_baseline});
    }
    result.targets.push_back(std::move(target));
  }
  return result;
}

Baseline baseline_of(const CheckResult& result) {
  Baseline b;
  for (const auto& t : result.targets)
    for (const auto& c : t.findings)
      if (c.selected) b.accepted.insert({t.repo, c.finding.key()});
  return b;
}

}  // namespace hfi
