// The analysis step of the pipeline: everything a Report says, derived from a loaded Snapshot.
#pragma once

#include "report/report.hpp"
#include "source/snapshot.hpp"

namespace hfi {

Result<Report> build_report(Snapshot snapshot, const ReportOptions& options);

// Bytes per element of the config's torch_dtype (2 without a config or a dtype hfinspect knows).
uint32_t torch_dtype_bytes(const ModelConfig* cfg);

}  // namespace hfi
