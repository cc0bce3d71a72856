// `hfinspect check REPO...`: inspects each target and fails (exit 1) when a selected kind of
// finding is present and not accepted by the baseline file. Output for people, for scripts (json)
// or as GitHub Actions annotations (github).
#pragma once

#include <string>
#include <vector>

#include "app/inspect.hpp"

namespace hfi::cli {

struct CheckFlags {
  std::vector<std::string> targets;
  std::string fail_on;          // comma-separated finding kinds; empty: all of them
  std::string baseline;         // accepted findings (read)
  std::string write_baseline;   // accepted findings (written: everything selected that was found)
  std::string format = "text";  // text, json or github; run_check parses it (parse_check_format)
};

void define_check(CLI::App& command, CheckFlags& flags);
int run_check(const CheckFlags& check, const FetchFlags& fetch, const ReportOptions& options, spdlog::logger& log);

}  // namespace hfi::cli
