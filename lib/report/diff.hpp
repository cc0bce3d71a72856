// `hfinspect diff A B`: what changed between two models, in the terms a reader checks by hand —
// config fields changed, added and removed (with values), the headline figures, and the tensor
// structure by name pattern (added, removed, reshaped) with parameter deltas. The model and its
// renderers; pipeline/diff.hpp computes it from two reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/format.hpp"
#include "core/json.hpp"

namespace hfi {

struct FieldChange {
  std::string key;            // dotted path: "rope_scaling.factor", "vision_config.hidden_size"
  std::optional<Json> a, b;   // absent on the side that lacks the field
};

// All tensors of one name pattern ("model.layers.{i}.mlp.experts.{j}.down_proj.weight") on one side.
struct PatternSide {
  uint64_t tensors = 0;
  uint64_t params = 0;
  std::vector<std::pair<std::vector<uint64_t>, uint64_t>> shapes;  // shape -> tensor count, sorted
};

struct PatternChange {
  std::string pattern;
  std::optional<PatternSide> a, b;  // one side absent: added or removed
};

struct FigureChange {
  std::string name;  // "params.total", "kv.bytes_per_token", ...
  uint64_t a = 0, b = 0;
};

struct ReportDiff {
  std::string a_name, b_name;
  std::string a_type, b_type;      // model_type (language model's in parentheses when different)
  std::string structure_source;   // "checkpoints" (headers on both sides), "specs" (configs) or "mixed"
  std::vector<FieldChange> changed, added, removed;
  std::vector<FigureChange> figures;
  std::vector<PatternChange> patterns_added, patterns_removed, patterns_reshaped;
  uint64_t patterns_same = 0;
  std::optional<std::string> nearest_reason;  // diff A alone: why B was chosen
};

enum class DiffFormat { Text, Json, Markdown };

// "text", "json", "markdown": the values of `diff --format`.
std::optional<DiffFormat> parse_diff_format(std::string_view name);

std::string render_diff_text(const ReportDiff& d, bool color, size_t width = kDefaultWidth);
std::string render_diff_json(const ReportDiff& d);
std::string render_diff_markdown(const ReportDiff& d);
std::string render_diff(const ReportDiff& d, DiffFormat format, bool color, size_t width = kDefaultWidth);  // `color`, `width`: text only

}  // namespace hfi
