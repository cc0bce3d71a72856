// The command line as data, read from the CLI11 App that parses it. The shell completions and the
// man page are written from this, at run time, so that neither can drift from the flags.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace hfi::cli {

struct OptionModel {
  std::vector<std::string> names;    // "-v", "--verbose": short names first
  std::string value_name;            // "SECONDS", "TEXT"; empty for a flag
  std::vector<std::string> choices;  // the only values it takes, when they are known
  std::string description;
  bool takes_value() const { return !value_name.empty(); }
};

struct PositionalModel {
  std::string name;
  std::string description;
  std::vector<std::string> choices;
  bool required = false;
  bool repeated = false;  // takes any number of values
};

struct CommandModel {
  std::string name;  // the subcommand's; the program's for the root command
  std::string description;
  std::vector<OptionModel> options;  // its own; see options_in_effect
  std::vector<PositionalModel> positionals;
  bool falls_through = false;  // the root's options are accepted after it too
};

// The root first, then each subcommand in the order they were added. What CLI11 hides from
// --help (options and subcommands in the group "") is left out here as well.
std::vector<CommandModel> describe_command_line(CLI::App& root);

// The options a command accepts: its own, then the root's it falls through to, less those its
// own names shadow.
std::vector<const OptionModel*> options_in_effect(const CommandModel& command, const CommandModel& root);

// "a, b, c" from {"a", "b", "c"} and ", ", for the writers of the scripts and the page.
inline std::string joined(const std::vector<std::string>& words, const std::string& separator) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : separator) + word;
  return out;
}

}  // namespace hfi::cli
