// `hfinspect TARGET`: the default command. It also gives check and diff their way from a target
// to a Report: the flags that say how to fetch, the transport, and the exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <optional>
#include <string>

#include "report/report.hpp"

namespace hfi::cli {

struct FetchFlags {
  std::string revision;  // --revision
  bool offline = false;  // --offline
  std::string token;     // --token
  long timeout_s = 0;    // --timeout; 0: the environment's or the default
  int retries = -1;      // --retries; -1: the default
  long deadline_s = 0;   // --deadline; 0: the default
  std::string base;      // --base: a PEFT adapter's base model
  bool verbose = false;  // -v: also say retries when stderr is not a terminal
};

// The flags every command shares.
struct CommonFlags {
  FetchFlags fetch;
  std::optional<uint64_t> context;  // --ctx; unset: the model's maximum
  uint64_t batch = 1;               // --batch
  std::string kv_dtype;             // --kv-dtype
  std::string variant;              // --variant: a GGUF variant
  std::string color = "auto";
  bool verbose = false;
  ReportOptions report_options() const;
  bool use_color() const;
};

struct InspectFlags {
  std::string target;
  std::string format = "text";  // --format, or --json / --markdown
};

// Columns for text output: COLUMNS when it holds a width, else the terminal's, else (piped) 80.
size_t terminal_width();

// --format's short forms, which every command takes: --json and --markdown.
void add_format_aliases(CLI::App& command, std::string& format);

void define_common_flags(CLI::App& app, CommonFlags& flags);
// The first option of `app` given on the command line whose name is not in `read` (names separated
// by spaces), or "": with fallthrough a subcommand sees the top level's options, and one it does not
// read must be refused rather than ignored.
std::string unread_option(const CLI::App& app, std::string_view read);
void define_inspect(CLI::App& app, InspectFlags& flags);
int run_inspect(const InspectFlags& flags, const CommonFlags& common, spdlog::logger& log);

// From a command-line target to a Report, through the library's pipeline.
Result<Report> inspect_target(const std::string& target, const FetchFlags& flags, const ReportOptions& options, spdlog::logger& log);

// Exit codes (docs/cli.md): 0 ok, 1 a check failed, 2 usage, 3 not found / no access,
// 4 network, 5 malformed remote or local data.
int exit_code(ErrorKind kind);
int fail(const Error& error);  // prints the error on stderr, returns its exit code

// Writes `text` to stdout and returns `code`.
int print(const std::string& text, int code);
// `code`, once stdout is flushed; a failed write (a closed pipe, a full disk) turns success into 4.
int flushed(int code);

}  // namespace hfi::cli
