// The result of `hfinspect check`: every target's findings, each marked selected (its kind is one
// --fail-on names) and in the baseline or not, and how many are new. pipeline/check.hpp computes
// it; the renderers here print it for people, for scripts (json) or as GitHub Actions annotations.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "report/findings.hpp"
#include "report/format.hpp"

namespace hfi {

struct CheckedFinding {
  Finding finding;
  bool selected = false;     // its kind is one the check fails on
  bool in_baseline = false;  // the baseline accepts it for this repository
};

struct TargetCheck {
  std::string repo;
  std::string commit;  // empty when the source does not know it
  std::vector<CheckedFinding> findings;
  std::optional<Error> error;  // the target could not be inspected: no findings, the reason
};

struct CheckResult {
  std::set<FindingKind> fail_on;
  std::vector<TargetCheck> targets;
  size_t new_findings = 0;  // selected and not in the baseline: what makes the check fail
  size_t failed_targets = 0;  // targets with an error
};

enum class CheckFormat { Text, Json, Github, Sarif, Markdown };

// "text", "json", "github", "sarif", "markdown": the values of `check --format`.
std::optional<CheckFormat> parse_check_format(std::string_view name);

std::string render_check_text(const CheckResult& result, size_t width = kDefaultWidth);
std::string render_check_json(const CheckResult& result);
std::string render_check_github(const CheckResult& result);
// SARIF 2.1.0, for code-scanning upload: one rule per kind of finding (its id is the kind's name,
// stable), one result per selected finding; a finding the baseline accepts is a note.
std::string render_check_sarif(const CheckResult& result, const std::string& tool_version);
// A summary fit for $GITHUB_STEP_SUMMARY: one table row per target, then the new findings.
std::string render_check_markdown(const CheckResult& result);
std::string render_check(const CheckResult& result, CheckFormat format, const std::string& tool_version = "", size_t width = kDefaultWidth);

}  // namespace hfi
