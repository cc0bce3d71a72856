// `hfinspect completion bash|zsh|fish`: a completion script for the shell, written at run time from
// the CLI11 definitions that parse the command line (app/cli_model.hpp), so it offers exactly the
// subcommands, options and choices --help shows. The hidden `completion --man-page` prints the man
// page from the same definitions; the build writes hfinspect.1 and the three scripts with them.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "app/cli_model.hpp"

namespace hfi::cli {

struct CompletionFlags {
  std::string shell;             // bash, zsh or fish
  bool man_page = false;         // --man-page, hidden: for the build
  CLI::App* root = nullptr;      // the command line to describe
};

// `command` is the subcommand; the command line it describes is its parent's.
void define_completion(CLI::App& command, CompletionFlags& flags);
int run_completion(const CompletionFlags& flags);

std::string bash_completion(const std::vector<CommandModel>& commands);
std::string zsh_completion(const std::vector<CommandModel>& commands);
std::string fish_completion(const std::vector<CommandModel>& commands);

}  // namespace hfi::cli
