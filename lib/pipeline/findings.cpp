#include "pipeline/findings.hpp"

#include "core/json.hpp"
#include "report/format.hpp"

namespace hfi {
namespace {

std::string short_value(const Json& value) {
  std::string text = value.dump();
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

std::string spec_name(const Report& r) { return r.family.empty() ? r.text_model_type : r.family; }

}  // namespace

std::vector<Finding> collect_findings(const Report& r) {
  std::vector<Finding> out;
  if (r.pipeline) {  // a pipeline's findings are its components', each named by its component
    for (const auto& c : r.pipeline->components) {
      if (!c.report) continue;
      for (auto f : collect_findings(*c.report)) {
        f.subject = c.ref.name + "/" + f.subject;
        f.message = c.ref.name + ": " + f.message;
        if (!f.file.empty()) f.file = c.ref.path + "/" + f.file;
        out.push_back(std::move(f));
      }
    }
    return out;
  }
  for (const auto& u : r.unknown_fields)
    out.push_back({FindingKind::UnknownField, u.subject(),
                   u.file == "config.json"
                       ? "config field " + u.name + " = " + short_value(u.value) + " is not read by the " + spec_name(r) + " spec"
                       : u.file + " key " + u.name + " = " + short_value(u.value) + " is not one hfinspect knows",
                   u.file, u.line});
  // An adapter is held to its base, not to a spec of its own: its pairs are its findings.
  if (r.adapter) {
    for (const auto& issue : r.adapter->issues)
      out.push_back({FindingKind::Adapter, issue.kind + ":" + issue.module, "adapter " + issue.kind + ": " + issue.message});
  }
  // Without a spec every tensor is "unexplained": one finding says why, not one per name pattern.
  // (An adapter has no spec of its own: it is held to its base instead.)
  if (!r.spec && !r.adapter) {
    if (r.model_type.empty())
      out.push_back({FindingKind::NoSpec, "config.json", "no config.json (or no model_type in it): the structure is not checked", "config.json"});
    else
      out.push_back({FindingKind::NoSpec, r.model_type,
                     "no architecture spec for model_type " + r.model_type +
                         (r.text_model_type != r.model_type && !r.text_model_type.empty() ? " nor " + r.text_model_type : std::string()) +
                         ": the totals come from the headers, the structure is not checked"});
  }
  auto unexplained = [&](const PatternGroup& g, const std::string& what) {
    out.push_back({FindingKind::Unexplained, g.pattern,
                   with_commas(g.tensors) + " tensor(s) " + g.pattern + what + " match nothing in the " + spec_name(r) + " spec"});
  };
  // A folder without headers is reconciled by the names its index lists: the same findings, which
  // say so.
  const bool by_name = r.reconcile.source == ReconcileSource::Index;
  if (r.spec)
    for (const auto& g : r.reconcile.unexplained) unexplained(g, by_name ? " listed in the index" : " (" + with_commas(g.params) + " params)");
  for (const auto& m : r.reconcile.missing)
    out.push_back({FindingKind::Missing, m.name,
                   m.name + " (" + with_commas(m.params) + " params) is expected by the " + spec_name(r) + " spec but " +
                       (by_name ? "not listed in the index" : "not stored")});
  for (const auto& s : r.reconcile.shape_mismatches)
    out.push_back({FindingKind::ShapeMismatch, s.name,
                   s.name + " is stored as " + shape_text(s.actual) + ", the spec expects " + shape_text(s.expected)});
  for (const auto& line : r.index_mismatches)
    out.push_back({FindingKind::IndexMismatch, line.substr(0, line.find(':')), "index: " + line});
  if (r.quant)
    for (const auto& q : r.quant->findings) out.push_back({FindingKind::Quant, q.check + ":" + q.subject, q.check + ": " + q.message});
  // Nothing stored to hold the config to: every other kind would pass on an empty checkpoint.
  if (r.shard_count == 0 && !r.index_reconcile)
    out.push_back({FindingKind::NoWeights, "safetensors",
                   r.other_weight_files.empty()
                       ? "no safetensors headers or index: nothing stored was checked, the figures come from config.json alone"
                       : "no safetensors headers or index (only " + first_and_others(r.other_weight_files) +
                             ", which hfinspect does not read): nothing stored was checked"});
  return out;
}

}  // namespace hfi
