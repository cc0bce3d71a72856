// Renderers for `hfinspect check`: a list for people, JSON for scripts, workflow commands for
// GitHub Actions (one annotation per selected finding).
#include <algorithm>

#include "core/json.hpp"
#include "core/text.hpp"
#include "report/check_result.hpp"
#include "report/text_layout.hpp"

namespace hfi {
namespace {

Json name_json(FindingKind kind) { return Json::make_string(std::string(finding_kind_name(kind))); }

// GitHub workflow commands end at a newline and treat % specially in the message.
std::string github_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out += c;
  }
  return out;
}

// Property values of a workflow command also end at ',' and ':'.
std::string github_property(const std::string& text) {
  std::string out;
  for (char c : github_escape(text)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

// A finding's file as a path: under the target when the target is a folder, else as the
// repository names it ("org/name/config.json").
std::string file_path(const std::string& repo, const std::string& file) {
  return repo.ends_with("/") ? repo + file : repo + "/" + file;
}

void target_text(std::string& out, const TargetCheck& t, size_t width) {
  if (t.error) {
    out += text::wrap(t.repo + ": error (" + error_kind_name(t.error->kind) + "): " + t.error->describe(), 4, width) + "\n";
    return;
  }
  size_t count = 0;
  for (const auto& c : t.findings) count += c.selected;
  out += t.repo + (t.commit.empty() ? "" : " @ " + t.commit.substr(0, 12)) + ": " + std::to_string(count) + " finding(s)\n";
  for (const auto& c : t.findings) {
    if (!c.selected) continue;
    const std::string line = std::string(finding_kind_name(c.finding.kind)) + "  " + c.finding.message + (c.in_baseline ? "  (in the baseline)" : "");
    out += std::string(c.in_baseline ? "  ok    " : "  FAIL  ") + text::wrap(line, 8, width) + "\n";
  }
}

// "error" (not inspected), "findings" (a selected finding the baseline does not accept) or "ok".
const char* status_name(const TargetCheck& t) {
  if (t.error) return "error";
  for (const auto& c : t.findings)
    if (c.selected && !c.in_baseline) return "findings";
  return "ok";
}

Json target_json(const TargetCheck& t) {
  std::vector<Json> findings;
  for (const auto& c : t.findings) {
    const Finding& f = c.finding;
    findings.push_back(Json::make_object({{"kind", name_json(f.kind)},
                                          {"subject", Json::make_string(f.subject)},
                                          {"key", Json::make_string(f.key())},
                                          {"message", Json::make_string(f.message)},
                                          {"selected", Json::make_bool(c.selected)},
                                          {"in_baseline", Json::make_bool(c.in_baseline)}}));
  }
  Json error;
  if (t.error)
    error = Json::make_object({{"kind", Json::make_string(error_kind_name(t.error->kind))},
                               {"message", Json::make_string(t.error->describe())}});
  return Json::make_object({{"repo", Json::make_string(t.repo)},
                            {"commit", t.commit.empty() ? Json() : Json::make_string(t.commit)},
                            {"status", Json::make_string(status_name(t))},
                            {"error", std::move(error)},
                            {"findings", Json::make_array(std::move(findings))}});
}

}  // namespace

std::optional<CheckFormat> parse_check_format(std::string_view name) {
  if (name == "text") return CheckFormat::Text;
  if (name == "json") return CheckFormat::Json;
  if (name == "github") return CheckFormat::Github;
  if (name == "sarif") return CheckFormat::Sarif;
  if (name == "markdown") return CheckFormat::Markdown;
  return std::nullopt;
}

std::string render_check_text(const CheckResult& result, size_t width) {
  std::string out;
  for (const auto& t : result.targets) target_text(out, t, width);
  out += "check: " + std::to_string(result.new_findings) + " new finding(s) in " + std::to_string(result.targets.size()) + " target(s)" +
         (result.failed_targets ? ", " + std::to_string(result.failed_targets) + " of them not inspected" : std::string()) + "\n";
  return printable(out);
}

std::string render_check_json(const CheckResult& result) {
  std::vector<Json> kinds, targets;
  for (FindingKind k : result.fail_on) kinds.push_back(name_json(k));
  for (const auto& t : result.targets) targets.push_back(target_json(t));
  Json doc = Json::make_object({{"schema_version", Json::make_int(1)},
                                {"fail_on", Json::make_array(std::move(kinds))},
                                {"new_findings", Json::make_uint(result.new_findings)},
                                {"failed_targets", Json::make_uint(result.failed_targets)},
                                {"targets", Json::make_array(std::move(targets))}});
  return doc.dump_pretty() + "\n";
}

std::string render_check_github(const CheckResult& result) {
  std::string out;
  for (const auto& t : result.targets) {
    if (t.error)
      out += "::error title=hfinspect " + std::string(error_kind_name(t.error->kind)) + "::" +
             printable(github_escape(t.repo + ": " + t.error->describe())) + "\n";
    for (const auto& c : t.findings) {
      if (!c.selected) continue;
      // file= points the annotation at the file in the checked-out repository, for a folder target.
      std::string file = c.finding.file.empty() ? std::string() : " file=" + github_property(file_path(t.repo, c.finding.file)) + ",";
      if (!file.empty() && c.finding.line) file += "line=" + std::to_string(*c.finding.line) + ",";
      out += std::string(c.in_baseline ? "::notice" : "::error") + file + " title=hfinspect " + std::string(finding_kind_name(c.finding.kind)) +
             "::" + printable(github_escape(t.repo + ": " + c.finding.message)) + "\n";
    }
  }
  return out;
}

std::string render_check_sarif(const CheckResult& result, const std::string& tool_version) {
  std::vector<Json> rules, results;
  auto rule_index = [](FindingKind kind) {
    const auto& kinds = all_finding_kinds();
    return static_cast<uint64_t>(std::find(kinds.begin(), kinds.end(), kind) - kinds.begin());
  };
  for (FindingKind kind : all_finding_kinds())
    rules.push_back(Json::make_object({{"id", name_json(kind)},
                                       {"shortDescription", Json::make_object({{"text", Json::make_string(std::string(finding_kind_description(kind)))}})}}));
  rules.push_back(Json::make_object({{"id", Json::make_string("not-inspected")},
                                     {"shortDescription", Json::make_object({{"text", Json::make_string("the target could not be inspected")}})}}));
  auto location = [](const std::string& uri, std::optional<size_t> line = {}) {
    std::vector<Json::Member> physical = {{"artifactLocation", Json::make_object({{"uri", Json::make_string(uri)}})}};
    if (line) physical.push_back({"region", Json::make_object({{"startLine", Json::make_uint(*line)}})});
    return Json::make_array({Json::make_object({{"physicalLocation", Json::make_object(std::move(physical))}})});
  };
  for (const auto& t : result.targets) {
    if (t.error)
      results.push_back(Json::make_object({{"ruleId", Json::make_string("not-inspected")},
                                           {"ruleIndex", Json::make_uint(all_finding_kinds().size())},
                                           {"level", Json::make_string("error")},
                                           {"message", Json::make_object({{"text", Json::make_string(t.repo + ": " + t.error->describe())}})},
                                           {"locations", location(t.repo)}}));
    for (const auto& c : t.findings) {
      if (!c.selected) continue;
      const Finding& f = c.finding;
      results.push_back(Json::make_object(
          {{"ruleId", name_json(f.kind)},
           {"ruleIndex", Json::make_uint(rule_index(f.kind))},
           {"level", Json::make_string(c.in_baseline ? "note" : "error")},
           {"message", Json::make_object({{"text", Json::make_string(t.repo + ": " + f.message)}})},
           {"locations", f.file.empty() ? location(t.repo) : location(file_path(t.repo, f.file), f.line)},
           {"partialFingerprints", Json::make_object({{"hfinspectFinding/v1", Json::make_string(t.repo + "|" + f.key())}})},
           {"baselineState", Json::make_string(c.in_baseline ? "unchanged" : "new")}}));
    }
  }
  Json driver = Json::make_object({{"name", Json::make_string("hfinspect")},
                                   {"version", Json::make_string(tool_version.empty() ? "unknown" : tool_version)},
                                   {"rules", Json::make_array(std::move(rules))}});
  Json doc = Json::make_object({{"$schema", Json::make_string("https://json.schemastore.org/sarif-2.1.0.json")},
                                {"version", Json::make_string("2.1.0")},
                                {"runs", Json::make_array({Json::make_object({{"tool", Json::make_object({{"driver", std::move(driver)}})},
                                                                              {"results", Json::make_array(std::move(results))}})})}});
  return doc.dump_pretty() + "\n";
}

std::string render_check_markdown(const CheckResult& result) {
  std::string out = "### hfinspect check\n\n";
  out += std::to_string(result.new_findings) + " new finding(s) in " + std::to_string(result.targets.size()) + " target(s)" +
         (result.failed_targets ? ", " + std::to_string(result.failed_targets) + " not inspected" : std::string()) + "\n\n";
  out += "| target | status | new | in the baseline |\n|---|---|---:|---:|\n";
  for (const auto& t : result.targets) {
    size_t fresh = 0, accepted = 0;
    for (const auto& c : t.findings)
      if (c.selected) (c.in_baseline ? accepted : fresh) += 1;
    out += "| `" + t.repo + "` | " + status_name(t) + " | " + std::to_string(fresh) + " | " + std::to_string(accepted) + " |\n";
  }
  bool heading = false;
  for (const auto& t : result.targets) {
    if (t.error) {
      if (!heading) out += "\n#### New findings\n\n";
      heading = true;
      out += "- `" + t.repo + "`: not inspected: " + t.error->describe() + "\n";
    }
    for (const auto& c : t.findings) {
      if (!c.selected || c.in_baseline) continue;
      if (!heading) out += "\n#### New findings\n\n";
      heading = true;
      out += "- `" + t.repo + "` **" + std::string(finding_kind_name(c.finding.kind)) + "**: " + c.finding.message + "\n";
    }
  }
  return printable(out);
}

std::string render_check(const CheckResult& result, CheckFormat format, const std::string& tool_version, size_t width) {
  switch (format) {
    case CheckFormat::Text: return render_check_text(result, width);
    case CheckFormat::Json: return render_check_json(result);
    case CheckFormat::Github: return render_check_github(result);
    case CheckFormat::Sarif: return render_check_sarif(result, tool_version);
    case CheckFormat::Markdown: return render_check_markdown(result);
  }
  return render_check_text(result);
}

}  // namespace hfi
