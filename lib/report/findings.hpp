// What `hfinspect check` gates on: the parts of a report that mean "this checkpoint holds something
// the specs do not understand". Each finding has a stable key (kind + subject) so that a baseline
// file (formats/baseline.hpp) can accept known ones and CI fails only on what is new.
// pipeline/findings.hpp derives them from a Report.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hfi {

enum class FindingKind { UnknownField, Unexplained, Missing, ShapeMismatch, IndexMismatch, Quant, NoWeights, NoSpec, Adapter };

// "unknown-fields", "unexplained", "missing", "shape-mismatch", "index-mismatch", "quant",
// "no-weights", "no-spec", "adapter".
std::string_view finding_kind_name(FindingKind kind);
std::optional<FindingKind> parse_finding_kind(std::string_view name);
// One line on what a kind of finding means (SARIF's rule descriptions).
std::string_view finding_kind_description(FindingKind kind);
const std::vector<FindingKind>& all_finding_kinds();

struct Finding {
  FindingKind kind = FindingKind::UnknownField;
  std::string subject;  // the field, tensor or name pattern it is about
  std::string message;  // one line for people
  std::string file = {};  // the file it is about, when one is (config.json for its fields)
  std::optional<size_t> line = {};  // the line in that file, when known (a config field's)
  std::string key() const;  // "<kind>:<subject>", what a baseline stores
};

}  // namespace hfi
