#include "app/cli_model.hpp"

#include <algorithm>

#include "analysis/gpu_presets.hpp"

namespace hfi::cli {
namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1)
    parts.push_back(text.substr(start, comma - start));
  parts.push_back(text.substr(start));
  return parts;
}

// CLI11 keeps an IsMember set inside its validator and exposes it only as text. The validator's
// description would do, but an option may blank it for a shorter --help line (--color does), so
// the validator itself is asked about a value no set holds, and IsMember answers
// "<value> not in {a,b,c}". Any other check (a Range) answers otherwise and gives no choices.
std::vector<std::string> member_choices(CLI::Option& option) {
  const std::string probe = "\x1f";
  const std::string refusal = probe + " not in {";
  for (int i = 0;; ++i) {
    CLI::Validator* validator = nullptr;
    try {
      validator = option.get_validator(i);
    } catch (const CLI::OptionNotFound&) {
      return {};  // past the last validator
    }
    std::string answer;
    try {
      std::string value = probe;
      answer = (*validator)(value);
    } catch (const CLI::Error&) {
      continue;  // a set of numbers cannot even read the probe
    }
    if (answer.starts_with(refusal) && answer.ends_with("}"))
      return split_commas(answer.substr(refusal.size(), answer.size() - refusal.size() - 1));
  }
}

// Values a command checks itself rather than through CLI11, listed by the library. `fit --gpu`
// finds a preset ignoring case and dashes ("H100 80GB"), which an IsMember check would refuse.
std::vector<std::string> library_choices(const std::string& command, const std::string& option) {
  std::vector<std::string> names;
  if (command == "fit" && option == "--gpu")
    for (const auto& preset : gpu_presets()) names.emplace_back(preset.name);
  return names;
}

OptionModel describe_option(CLI::Option& option, const std::string& command) {
  OptionModel model;
  for (const auto& name : option.get_snames()) model.names.push_back("-" + name);
  for (const auto& name : option.get_lnames()) model.names.push_back("--" + name);
  model.description = option.get_description();
  if (option.get_expected_max() == 0) return model;  // a flag
  // get_type_name() appends each validator's description after a ':' ("TEXT:{text,json}").
  model.value_name = option.get_type_name().substr(0, option.get_type_name().find(':'));
  if (model.value_name.empty()) model.value_name = "VALUE";
  model.choices = member_choices(option);
  if (model.choices.empty()) model.choices = library_choices(command, model.names.back());
  return model;
}

PositionalModel describe_positional(CLI::Option& option) {
  PositionalModel model;
  model.name = option.get_name(true);
  model.description = option.get_description();
  model.choices = member_choices(option);
  model.required = option.get_required();
  model.repeated = option.get_items_expected_max() > 1;
  return model;
}

CommandModel describe_command(CLI::App& app) {
  CommandModel model;
  model.name = app.get_name();
  model.description = app.get_description();
  model.falls_through = app.get_parent() != nullptr && app.get_fallthrough();
  for (CLI::Option* option : app.get_options()) {
    if (option->get_group().empty()) continue;  // hidden
    if (option->nonpositional())
      model.options.push_back(describe_option(*option, app.get_parent() ? app.get_name() : ""));
    else
      model.positionals.push_back(describe_positional(*option));
  }
  return model;
}

}  // namespace

std::vector<CommandModel> describe_command_line(CLI::App& root) {
  std::vector<CommandModel> commands{describe_command(root)};
  std::function<bool(CLI::App*)> visible = [](CLI::App* sub) { return !sub->get_group().empty(); };
  for (CLI::App* sub : root.get_subcommands(visible)) commands.push_back(describe_command(*sub));
  return commands;
}

std::vector<const OptionModel*> options_in_effect(const CommandModel& command, const CommandModel& root) {
  std::vector<const OptionModel*> options;
  for (const auto& option : command.options) options.push_back(&option);
  if (&command == &root || !command.falls_through) return options;
  auto shadowed = [&](const OptionModel& inherited) {
    return std::any_of(command.options.begin(), command.options.end(), [&](const OptionModel& own) {
      return std::find_first_of(own.names.begin(), own.names.end(), inherited.names.begin(), inherited.names.end()) !=
             own.names.end();
    });
  };
  for (const auto& option : root.options)
    if (!shadowed(option)) options.push_back(&option);
  return options;
}

}  // namespace hfi::cli
