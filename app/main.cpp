// hfinspect's command line, as a table of contents: the commands, each defined and run in a file
// of its own (inspect.cpp, check.cpp, diff.cpp, fit.cpp, completion.cpp). Everything else lives in libhfinspect.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <iterator>
#include <string>

#include "app/architectures.hpp"
#include "app/check.hpp"
#include "app/completion.hpp"
#include "app/diff.hpp"
#include "app/fit.hpp"
#include "app/inspect.hpp"

namespace {

struct Flags {
  hfi::cli::CommonFlags common;
  hfi::cli::InspectFlags inspect;
  hfi::cli::CheckFlags check;
  hfi::cli::DiffFlags diff;
  hfi::cli::FitFlags fit;
  hfi::cli::CompletionFlags completion;
};

// The shared flags (define_common_flags) that a command reads; any other given to it is refused.
constexpr const char* kFetchAndReportFlags =
    "--revision --base --offline --token --timeout --deadline --retries --verbose --ctx --batch --kv-dtype --variant";
constexpr const char* kEveryFlag =
    "--revision --base --offline --token --timeout --deadline --retries --verbose --ctx --batch --kv-dtype --variant --color";

struct Command {
  const char* name;  // empty: the default command, `hfinspect TARGET`
  const char* summary;
  const char* shared_flags_read;
  void (*define)(CLI::App& app, Flags& flags);
  int (*run)(Flags& flags, spdlog::logger& log);
};

const Command kCommands[] = {
    {"", "what a Hugging Face model is made of, from its metadata alone", kEveryFlag,
     [](CLI::App& app, Flags& f) { hfi::cli::define_inspect(app, f.inspect); },
     [](Flags& f, spdlog::logger& log) { return hfi::cli::run_inspect(f.inspect, f.common, log); }},
    {"check", "for CI: exit 1 when a target holds findings of the selected kinds that the baseline does not accept",
     kFetchAndReportFlags,
     [](CLI::App& app, Flags& f) { hfi::cli::define_check(app, f.check); },
     [](Flags& f, spdlog::logger& log) {
       return hfi::cli::run_check(f.check, f.common.fetch, f.common.report_options(), log);
     }},
    {"diff", "what changed between two models (config fields, figures, tensor patterns); "
             "with one target, against its nearest bundled reference config",
     kEveryFlag,
     [](CLI::App& app, Flags& f) { hfi::cli::define_diff(app, f.diff); },
     [](Flags& f, spdlog::logger& log) {
       f.diff.color = f.common.use_color();
       return hfi::cli::run_diff(f.diff, f.common.fetch, f.common.report_options(), log);
     }},
    {"fit", "will it fit: weights, KV cache and how much context and batch on these GPUs (TP, PP, EP)", kFetchAndReportFlags,
     [](CLI::App& app, Flags& f) { hfi::cli::define_fit(app, f.fit); },
     [](Flags& f, spdlog::logger& log) { return hfi::cli::run_fit(f.fit, f.common, log); }},
    {"completion", "print a completion script for bash, zsh or fish: source <(hfinspect completion bash)", "",
     [](CLI::App& app, Flags& f) { hfi::cli::define_completion(app, f.completion); },
     [](Flags& f, spdlog::logger&) { return hfi::cli::run_completion(f.completion); }},
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{std::string("hfinspect: ") + kCommands[0].summary, "hfinspect"};
  app.set_version_flag("--version", std::string("hfinspect ") + HFINSPECT_VERSION + " (commit " + HFINSPECT_COMMIT + ")");
  hfi::cli::define_list_architectures(app);
  Flags flags;
  hfi::cli::define_common_flags(app, flags.common);
  CLI::App* parsers[std::size(kCommands)];
  for (size_t i = 0; i < std::size(kCommands); ++i) {
    parsers[i] = i == 0 ? &app : app.add_subcommand(kCommands[i].name, kCommands[i].summary);
    if (i > 0) parsers[i]->fallthrough();  // --offline, --token, --revision... before or after the targets
    kCommands[i].define(*parsers[i], flags);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  auto log = spdlog::stderr_color_mt("hfinspect");
  log->set_level(flags.common.verbose ? spdlog::level::info : spdlog::level::warn);
  log->set_pattern("hfinspect: %v");
  for (size_t i = std::size(kCommands); i-- > 1;) {
    if (!parsers[i]->parsed()) continue;
    if (auto unused = hfi::cli::unread_option(app, kCommands[i].shared_flags_read); !unused.empty())
      return hfi::cli::fail({hfi::ErrorKind::Usage, unused, "", std::string("is not read by hfinspect ") + kCommands[i].name,
                             "drop it; `hfinspect " + std::string(kCommands[i].name) + " --help` lists what it reads"});
    return hfi::cli::flushed(kCommands[i].run(flags, *log));
  }
  if (flags.inspect.target.empty()) {
    std::fprintf(stderr, "%s", app.help().c_str());
    return 2;
  }
  return hfi::cli::flushed(kCommands[0].run(flags, *log));
}
