// What `hfinspect check` gates on: the parts of a report that mean "this checkpoint holds something
// the specs do not understand". Each finding has a stable key (kind + subject) so that a baseline
// file can accept known ones and CI fails only on what is new.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "report/report.hpp"

namespace hfi {

enum class FindingKind { UnknownField, Unexplained, Missing, ShapeMismatch, IndexMismatch, Quant };

// "unknown-fields", "unexplained", "missing", "shape-mismatch", "index-mismatch", "quant".
std::string_view finding_kind_name(FindingKind kind);
std::optional<FindingKind> parse_finding_kind(std::string_view name);
const std::vector<FindingKind>& all_finding_kinds();

struct Finding {
  FindingKind kind = FindingKind::UnknownField;
  std::string subject;  // the field, tensor or name pattern it is about
  std::string message;  // one line for people
  std::string key() const;  // "<kind>:<subject>", what a baseline stores
};

std::vector<Finding> collect_findings(const Report& report);

// Accepted findings per repository: {"schema_version": 1, "accepted": {"<repo>": ["<key>", ...]}}.
struct Baseline {
  std::set<std::pair<std::string, std::string>> accepted;  // (repo, key)
  bool accepts(const std::string& repo, const Finding& finding) const;
};

Result<Baseline> parse_baseline(std::string_view text, std::string_view file);
std::string render_baseline(const Baseline& baseline);

}  // namespace hfi
