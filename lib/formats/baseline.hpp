// Pure parser and writer for the baseline file of `hfinspect check`: the findings each repository
// is accepted to hold, by key ("<kind>:<subject>", report/findings.hpp).
//   {"schema_version": 1, "accepted": {"<repo>": ["<key>", ...]}}
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.hpp"

namespace hfi {

struct Baseline {
  std::set<std::pair<std::string, std::string>> accepted;  // (repo, key)
  bool accepts(const std::string& repo, const std::string& key) const { return accepted.count({repo, key}) > 0; }
};

Result<Baseline> parse_baseline(std::string_view text, std::string_view file);
// Repositories and their keys in sorted order, so a rewritten baseline diffs cleanly.
std::string render_baseline(const Baseline& baseline);

}  // namespace hfi
