// `hfinspect diff A [B]`: what changed between two models. With one target, B is A's nearest
// relative among the configs bundled in the library (lib/reference).
#pragma once

#include <string>

#include "app/inspect.hpp"

namespace hfi::cli {

struct DiffFlags {
  std::string a, b;             // targets, as for inspect; b empty: nearest bundled reference
  std::string format = "text";  // text, json or markdown; run_diff parses it (parse_diff_format)
  bool color = false;
};

void define_diff(CLI::App& command, DiffFlags& flags);
int run_diff(const DiffFlags& diff, const FetchFlags& fetch, const ReportOptions& options, spdlog::logger& log);

}  // namespace hfi::cli
