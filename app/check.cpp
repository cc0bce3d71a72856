#include "app/check.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "formats/baseline.hpp"
#include "pipeline/check.hpp"
#include "report/check_result.hpp"

namespace hfi::cli {
namespace {

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
                   "use unknown-fields, unexplained, missing, shape-mismatch, index-mismatch, quant, no-weights, no-spec or adapter"};
    kinds.insert(*kind);
  }
  return kinds;
}

Result<Baseline> read_baseline(const std::string& path) {
  if (path.empty()) return Baseline{};
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(path, "cannot be read", "give the file --write-baseline wrote");
  std::stringstream text;
  text << in.rdbuf();
  return parse_baseline(text.str(), path);
}

}  // namespace

void define_check(CLI::App& command, CheckFlags& flags) {
  command.add_option("targets", flags.targets, "directories or org/name[@revision]")->required();
  command.add_option("--fail-on", flags.fail_on,
                     "comma-separated: unknown-fields, unexplained, missing, shape-mismatch, index-mismatch, quant, no-weights, no-spec, adapter (default: all)");
  command.add_option("--baseline", flags.baseline, "accepted findings, as written by --write-baseline");
  command.add_option("--write-baseline", flags.write_baseline, "write every selected finding to this file and exit 0");
  command.add_option("--format", flags.format,
                     "text, json, markdown (a summary for $GITHUB_STEP_SUMMARY), github (Actions annotations) or sarif (2.1.0, for code scanning)")
      ->check(CLI::IsMember({"text", "json", "markdown", "github", "sarif"}).description(""))
      ->type_name("FORMAT");
  add_format_aliases(command, flags.format);
}

int run_check(const CheckFlags& check, const FetchFlags& fetch, const ReportOptions& options, spdlog::logger& log) {
  auto format = parse_check_format(check.format);
  if (!format) return fail({ErrorKind::Usage, "--format", check.format, "is not a check format", "use text, json, markdown, github or sarif"});
  auto kinds = parse_kinds(check.fail_on);
  if (!kinds) return fail(kinds.error());
  auto baseline = read_baseline(check.baseline);
  if (!baseline) return fail(baseline.error());
  CheckResult result;
  result.fail_on = *kinds;
  int worst = 0;  // every target is checked; the run exits with the worst outcome among them
  for (const auto& target : check.targets) {
    auto report = inspect_target(target, fetch, options, log);
    if (!report) worst = std::max(worst, exit_code(report.error().kind));
    add_target(result, target, report, *baseline);
  }
  std::string text = render_check(result, *format, HFINSPECT_VERSION, terminal_width());
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!check.write_baseline.empty()) {
    Baseline written = baseline_of(result);
    std::ofstream out(check.write_baseline, std::ios::binary | std::ios::trunc);
    out << render_baseline(written);
    if (!out) return fail({ErrorKind::Usage, check.write_baseline, "", "cannot be written", {}});
    std::fprintf(stderr, "hfinspect: wrote %zu accepted finding(s) to %s\n", written.accepted.size(), check.write_baseline.c_str());
    return worst;  // 0 unless a target could not be inspected
  }
  return std::max(worst, result.new_findings > 0 ? 1 : 0);
}

}  // namespace hfi::cli
