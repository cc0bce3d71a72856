#include "app/diff.hpp"

#include "app/inspect.hpp"

#include <cstdio>

#include "pipeline/diff.hpp"
#include "pipeline/analyse.hpp"
#include "reference/reference_configs.hpp"
#include "report/diff.hpp"

namespace hfi::cli {

void define_diff(CLI::App& command, DiffFlags& flags) {
  command.add_option("a", flags.a, "directory or org/name[@revision]")->required();
  command.add_option("b", flags.b, "directory or org/name[@revision]; omitted: A's nearest bundled reference");
  command.add_option("--format", flags.format, "text, json or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}).description(""))
      ->type_name("FORMAT");
  add_format_aliases(command, flags.format);
}

int run_diff(const DiffFlags& diff, const FetchFlags& fetch, const ReportOptions& options, spdlog::logger& log) {
  auto format = parse_diff_format(diff.format);
  if (!format) return fail({ErrorKind::Usage, "--format", diff.format, "is not a diff format", "use text, json or markdown"});
  ReportOptions a_options = options;
  a_options.repo_id = diff.a;
  auto a = inspect_target(diff.a, fetch, a_options, log);
  if (!a) return fail(a.error());

  std::optional<std::string> reason;
  Result<Report> b = Error{ErrorKind::Usage, "diff", "", "no second target", ""};
  if (!diff.b.empty()) {
    ReportOptions b_options = options;
    b_options.repo_id = diff.b;
    b = inspect_target(diff.b, fetch, b_options, log);
  } else {
    if (!a->config) return fail(Error{ErrorKind::Usage, diff.a, "config.json", "has no config.json to compare",
                                      "name a second target: hfinspect diff A B"});
    auto nearest = nearest_reference(*a->config, diff.a);
    if (!nearest) return fail(Error{ErrorKind::Usage, "diff", "", "no bundled reference config to compare with", ""});
    auto snap = reference_snapshot(nearest->repo);
    if (!snap) return fail(Error{ErrorKind::Malformed, nearest->repo, "config.json", "bundled config does not parse", ""});
    ReportOptions b_options = options;
    b_options.repo_id = nearest->repo;
    b = build_report(std::move(*snap), b_options);
    reason = nearest->repo + ", " + nearest->reason;
  }
  if (!b) return fail(b.error());

  ReportDiff d = diff_reports(*a, *b);
  d.nearest_reason = reason;
  std::string text = render_diff(d, *format, diff.color, terminal_width());
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace hfi::cli
