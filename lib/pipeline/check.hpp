// `hfinspect check`: from the targets' reports, the kinds of finding to fail on and the accepted
// findings of a baseline file to the check's result (report/check_result.hpp).
#pragma once

#include <set>

#include "formats/baseline.hpp"
#include "report/check_result.hpp"
#include "report/report.hpp"

namespace hfi {

// Adds one target to `result`: the report's findings, or why the target could not be inspected.
// Reports are taken one by one, so that none is held longer than its findings need.
void add_target(CheckResult& result, const std::string& target, const Result<Report>& report, const Baseline& baseline);

// Every selected finding of every target: the baseline --write-baseline writes, which accepts
// all that the check found.
Baseline baseline_of(const CheckResult& result);

}  // namespace hfi
