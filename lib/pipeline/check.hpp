// `hfinspect check`: from the targets' reports, the kinds of finding to fail on and the accepted
// findings of a baseline file to the check's result (report/check_result.hpp).
#pragma once

#include <set>
#include <span>

#include "formats/baseline.hpp"
#include "report/check_result.hpp"
#include "report/report.hpp"

namespace hfi {

CheckResult check_reports(std::span<const Report> reports, const std::set<FindingKind>& fail_on, const Baseline& baseline);

// Every selected finding of every target: the baseline --write-baseline writes, which accepts
// all that the check found.
Baseline baseline_of(const CheckResult& result);

}  // namespace hfi
