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
  for (const auto& u : r.unknown_fields)
    out.push_back({FindingKind::UnknownField, u.subject(),
                   u.file == "config.json"
                       ? "config field " + u.name + " = " + short_value(u.value) + " is not read by the " + spec_name(r) + " spec"
                       : u.file + " key " + u.name + " = " + short_value(u.value) + " is not one hfinspect knows"});
  for (const auto& g : r.reconcile.unexplained)
    out.push_back({FindingKind::Unexplained, g.pattern,
                   with_commas(g.tensors) + " tensor(s) " + g.pattern + " (" + with_commas(g.params) + " params) match nothing in the " +
                       spec_name(r) + " spec"});
  for (const auto& m : r.reconcile.missing)
    out.push_back({FindingKind::Missing, m.name,
                   m.name + " (" + with_commas(m.params) + " params) is expected by the " + spec_name(r) + " spec but not stored"});
  for (const auto& s : r.reconcile.shape_mismatches)
    out.push_back({FindingKind::ShapeMismatch, s.name,
                   s.name + " is stored as " + shape_text(s.actual) + ", the spec expects " + shape_text(s.expected)});
  for (const auto& line : r.index_mismatches)
    out.push_back({FindingKind::IndexMismatch, line.substr(0, line.find(':')), "index: " + line});
  if (r.quant)
    for (const auto& q : r.quant->findings) out.push_back({FindingKind::Quant, q.check + ":" + q.subject, q.check + ": " + q.message});
  return out;
}

}  // namespace hfi
