// `hfinspect fit`'s output: text for people (80 columns) and JSON with the keys docs/fit.md lists.
#pragma once

#include <string>

#include "report/format.hpp"
#include "analysis/fit.hpp"
#include "report/report.hpp"

namespace hfi {

std::string render_fit_text(const Report& report, const FitAnswer& answer, size_t width = kDefaultWidth);
std::string render_fit_json(const Report& report, const FitAnswer& answer);
std::string render_fit_markdown(const Report& report, const FitAnswer& answer);

}  // namespace hfi
