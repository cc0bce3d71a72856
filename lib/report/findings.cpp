#include "report/findings.hpp"

#include <map>

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

std::string_view finding_kind_name(FindingKind kind) {
  switch (kind) {
    case FindingKind::UnknownField: return "unknown-fields";
    case FindingKind::Unexplained: return "unexplained";
    case FindingKind::Missing: return "missing";
    case FindingKind::ShapeMismatch: return "shape-mismatch";
    case FindingKind::IndexMismatch: return "index-mismatch";
    case FindingKind::Quant: return "quant";
  }
  return "unknown";
}

const std::vector<FindingKind>& all_finding_kinds() {
  static const std::vector<FindingKind> kinds = {FindingKind::UnknownField, FindingKind::Unexplained, FindingKind::Missing,
                                                 FindingKind::ShapeMismatch, FindingKind::IndexMismatch, FindingKind::Quant};
  return kinds;
}

std::optional<FindingKind> parse_finding_kind(std::string_view name) {
  for (FindingKind k : all_finding_kinds())
    if (finding_kind_name(k) == name) return k;
  return std::nullopt;
}

std::string Finding::key() const { return std::string(finding_kind_name(kind)) + ":" + subject; }

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

bool Baseline::accepts(const std::string& repo, const Finding& finding) const {
  return accepted.count({repo, finding.key()}) > 0;
}

Result<Baseline> parse_baseline(std::string_view text, std::string_view file) {
  std::string f(file);
  auto doc = parse_json(text, file);
  if (!doc) return doc.error();
  const Json* accepted = doc->is_object() ? doc->find("accepted") : nullptr;
  if (!accepted || !accepted->is_object()) return malformed(f, "accepted", "missing or not an object of repository -> keys");
  Baseline b;
  for (const auto& [repo, keys] : accepted->members()) {
    if (!keys.is_array()) return malformed(f, "accepted." + repo, "is not an array of finding keys");
    for (const auto& k : keys.items()) {
      if (!k.is_string()) return malformed(f, "accepted." + repo, "holds a key that is not a string");
      b.accepted.insert({repo, k.as_string()});
    }
  }
  return b;
}

std::string render_baseline(const Baseline& baseline) {
  std::map<std::string, std::vector<Json>> by_repo;
  for (const auto& [repo, key] : baseline.accepted) by_repo[repo].push_back(Json::make_string(key));
  std::vector<Json::Member> repos;
  for (auto& [repo, keys] : by_repo) repos.emplace_back(repo, Json::make_array(std::move(keys)));
  Json doc = Json::make_object({{"schema_version", Json::make_int(1)}, {"accepted", Json::make_object(std::move(repos))}});
  return doc.dump_pretty() + "\n";
}

}  // namespace hfi
