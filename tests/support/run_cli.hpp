// Runs the real hfinspect binary (HFINSPECT_BINARY, set by CMake for the test executable) through
// the shell and captures its exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hfi::testing {

struct CliRun {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `env` is a prefix of NAME=value words (or an `env -i ...` command) placed before the binary.
inline CliRun run_cli(const std::string& args, const std::string& env = "") {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "cli";
  fs::create_directories(dir);
  // No test reaches past loopback: unless `env` names an endpoint (the test hub's), the Hub is a
  // port that refuses at once.
  std::string cmd = "HF_ENDPOINT=http://127.0.0.1:9 " + env + " " + std::string(HFINSPECT_BINARY) + " " + args + " >" +
                    (dir / "out").string() + " 2>" +
                    (dir / "err").string() + " </dev/null";
  int status = std::system(cmd.c_str());
  CliRun r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir / "out");
  r.err = slurp(dir / "err");
  return r;
}

}  // namespace hfi::testing
