#include "app/check.hpp"

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "core/json.hpp"
#include "report/findings.hpp"

namespace hfi::cli {
namespace {

struct RepoResult {
  std::string repo;
  std::string commit;
  std::vector<Finding> findings;
  std::vector<bool> selected, accepted;
};

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

Result<std::set<FindingKind>> parse_kinds(const std::string& list) {
  std::set<FindingKind> kinds;
  if (list.empty()) {
    kinds.insert(all_finding_kinds().begin(), all_finding_kinds().end());
    return kinds;
  }
  std::stringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    auto kind = parse_finding_kind(name);
    if (!kind)
      return Error{ErrorKind::Usage, "--fail-on", name, "is not a kind of finding",
                   "use unknown-fields, unexplained, missing, shape-mismatch, index-mismatch or quant"};
    kinds.insert(*kind);
  }
  return kinds;
}

std::string render_text(const std::vector<RepoResult>& results, size_t fresh) {
  std::string out;
  for (const auto& r : results) {
    size_t count = 0;
    for (size_t i = 0; i < r.findings.size(); ++i) count += r.selected[i];
    out += r.repo + (r.commit.empty() ? "" : " @ " + r.commit.substr(0, 12)) + ": " + std::to_string(count) + " finding(s)\n";
    for (size_t i = 0; i < r.findings.size(); ++i) {
      if (!r.selected[i]) continue;
      const Finding& f = r.findings[i];
      out += std::string(r.accepted[i] ? "  ok    " : "  FAIL  ") + std::string(finding_kind_name(f.kind)) + "  " + f.message +
             (r.accepted[i] ? "  (in the baseline)" : "") + "\n";
    }
  }
  out += "check: " + std::to_string(fresh) + " new finding(s) in " + std::to_string(results.size()) + " target(s)\n";
  return out;
}

std::string render_json(const std::vector<RepoResult>& results, const std::set<FindingKind>& kinds, size_t fresh) {
  std::vector<Json> selected_kinds, repos;
  for (FindingKind k : kinds) selected_kinds.push_back(Json::make_string(std::string(finding_kind_name(k))));
  for (const auto& r : results) {
    std::vector<Json> findings;
    for (size_t i = 0; i < r.findings.size(); ++i) {
      const Finding& f = r.findings[i];
      findings.push_back(Json::make_object({{"kind", Json::make_string(std::string(finding_kind_name(f.kind)))},
                                            {"subject", Json::make_string(f.subject)},
                                            {"key", Json::make_string(f.key())},
                                            {"message", Json::make_string(f.message)},
                                            {"selected", Json::make_bool(r.selected[i])},
                                            {"in_baseline", Json::make_bool(r.accepted[i])}}));
    }
    repos.push_back(Json::make_object({{"repo", Json::make_string(r.repo)},
                                       {"commit", r.commit.empty() ? Json() : Json::make_string(r.commit)},
                                       {"findings", Json::make_array(std::move(findings))}}));
  }
  Json doc = Json::make_object({{"schema_version", Json::make_int(1)},
                                {"fail_on", Json::make_array(std::move(selected_kinds))},
                                {"new_findings", Json::make_uint(fresh)},
                                {"targets", Json::make_array(std::move(repos))}});
  return doc.dump_pretty() + "\n";
}

std::string render_github(const std::vector<RepoResult>& results) {
  std::string out;
  for (const auto& r : results)
    for (size_t i = 0; i < r.findings.size(); ++i) {
      if (!r.selected[i]) continue;
      const Finding& f = r.findings[i];
      out += std::string(r.accepted[i] ? "::notice" : "::error") + " title=hfinspect " + std::string(finding_kind_name(f.kind)) +
             "::" + github_escape(r.repo + ": " + f.message) + "\n";
    }
  return out;
}

}  // namespace

void define_check(CLI::App& command, CheckFlags& flags) {
  command.add_option("targets", flags.targets, "directories or org/name[@revision]")->required();
  command.add_option("--fail-on", flags.fail_on,
                     "comma-separated: unknown-fields, unexplained, missing, shape-mismatch, index-mismatch, quant (default: all)");
  command.add_option("--baseline", flags.baseline, "accepted findings, as written by --write-baseline");
  command.add_option("--write-baseline", flags.write_baseline, "write every selected finding to this file and exit 0");
  command.add_option("--format", flags.format, "text, json or github (Actions annotations)")
      ->check(CLI::IsMember({"text", "json", "github"}));
}

int run_check(const CheckFlags& check, const FetchFlags& fetch, const ReportOptions& options, spdlog::logger& log) {
  auto kinds = parse_kinds(check.fail_on);
  if (!kinds) return fail(kinds.error());
  Baseline baseline;
  if (!check.baseline.empty()) {
    std::ifstream in(check.baseline, std::ios::binary);
    if (!in) return fail(not_found(check.baseline, "cannot be read", "give the file --write-baseline wrote"));
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = parse_baseline(text.str(), check.baseline);
    if (!parsed) return fail(parsed.error());
    baseline = std::move(parsed.value());
  }
  std::vector<RepoResult> results;
  Baseline written;
  size_t fresh = 0;
  for (const auto& target : check.targets) {
    auto report = inspect_target(target, fetch, options, log);
    if (!report) return fail(report.error());
    RepoResult r{report->repo_id, report->commit, collect_findings(*report), {}, {}};
    for (const auto& f : r.findings) {
      bool selected = kinds->count(f.kind) > 0;
      bool accepted = baseline.accepts(r.repo, f);
      r.selected.push_back(selected);
      r.accepted.push_back(accepted);
      if (selected && !accepted) ++fresh;
      if (selected) written.accepted.insert({r.repo, f.key()});
    }
    results.push_back(std::move(r));
  }
  std::string text = check.format == "json"     ? render_json(results, *kinds, fresh)
                     : check.format == "github" ? render_github(results)
                                                : render_text(results, fresh);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!check.write_baseline.empty()) {
    std::ofstream out(check.write_baseline, std::ios::binary | std::ios::trunc);
    out << render_baseline(written);
    if (!out) return fail({ErrorKind::Usage, check.write_baseline, "", "cannot be written", {}});
    std::fprintf(stderr, "hfinspect: wrote %zu accepted finding(s) to %s\n", written.accepted.size(), check.write_baseline.c_str());
    return 0;
  }
  return fresh > 0 ? 1 : 0;
}

}  // namespace hfi::cli
