// `hfinspect diff A B`: compares two reports field by field, figure by figure and tensor pattern
// by tensor pattern (report/diff.hpp holds the result and its renderers).
#pragma once

#include "report/diff.hpp"
#include "report/report.hpp"

namespace hfi {

ReportDiff diff_reports(const Report& a, const Report& b);

}  // namespace hfi
