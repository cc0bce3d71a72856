// The analysis step of the pipeline: everything a Report says, derived from a loaded Snapshot.
#pragma once

#include "report/report.hpp"
#include "source/snapshot.hpp"

namespace hfi {

Result<Report> build_report(Snapshot snapshot, const ReportOptions& options);

}  // namespace hfi
