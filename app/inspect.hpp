// From a command-line target to a Report: a directory is read in place; anything else is a
// repository, read from the Hub (or only the cache, offline) through libhfinspect.
#pragma once

#include <spdlog/spdlog.h>

#include <string>
#include <vector>

#include "report/report.hpp"
#include "source/snapshot.hpp"

namespace hfi::cli {

struct FetchFlags {
  std::string revision;  // --revision
  bool offline = false;  // --offline
  std::string token;     // --token
  long timeout_s = 0;    // --timeout; 0: the environment's or the default
  int retries = -1;      // --retries; -1: the default
};

// With `keep`, the snapshot the report was built from is moved there rather than freed: the CLI
// exits right after printing, and freeing DeepSeek-V3's ~200k small objects cost ~6 ms.
Result<Report> inspect_target(const std::string& target, const FetchFlags& flags, ReportOptions options, spdlog::logger& log,
                              std::vector<Snapshot>* keep = nullptr);

// Exit codes (docs/cli.md): 0 ok, 1 a check failed, 2 usage, 3 not found / no access,
// 4 network, 5 malformed remote or local data.
int exit_code(ErrorKind kind);
int fail(const Error& error);  // prints the error on stderr, returns its exit code

}  // namespace hfi::cli
