// The findings a report holds, in a stable order: unknown fields, unexplained patterns, missing
// tensors, shape mismatches, index mismatches, quantization audit findings.
#pragma once

#include <vector>

#include "report/findings.hpp"
#include "report/report.hpp"

namespace hfi {

std::vector<Finding> collect_findings(const Report& report);

}  // namespace hfi
