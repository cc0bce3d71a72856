#include "app/completion.hpp"

#include <algorithm>

#include "app/inspect.hpp"
#include "app/man_page.hpp"

namespace hfi::cli {
namespace {

// 'text' for sh-like shells: a quote inside becomes '\''.
std::string sh_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> subcommand_names(const std::vector<CommandModel>& commands) {
  std::vector<std::string> names;
  for (size_t i = 1; i < commands.size(); ++i) names.push_back(commands[i].name);
  return names;
}

// The long and short names of the root's options that take a value: the word after one of them
// is that value, never a subcommand.
std::vector<std::string> root_value_options(const CommandModel& root) {
  std::vector<std::string> names;
  for (const auto& option : root.options)
    if (option.takes_value()) names.insert(names.end(), option.names.begin(), option.names.end());
  return names;
}

// What a positional word completes to: the union of the positionals' choices, and file names
// unless every positional has choices (which position is being typed is not worked out).
struct PositionalWords {
  std::vector<std::string> choices;
  bool files = false;
};

PositionalWords positional_words(const CommandModel& command) {
  PositionalWords words;
  for (const auto& positional : command.positionals) {
    words.choices.insert(words.choices.end(), positional.choices.begin(), positional.choices.end());
    words.files = words.files || positional.choices.empty();
  }
  return words;
}

// --- bash ---------------------------------------------------------------------------------------

std::string bash_command_arm(const CommandModel& command, const CommandModel& root, const std::vector<CommandModel>& commands) {
  const std::string files = "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
  std::string arm = "    " + (&command == &root ? std::string("''") : command.name) + ")\n";
  arm += "      case $prev in\n";
  std::vector<std::string> file_values, names;
  for (const OptionModel* option : options_in_effect(command, root)) {
    names.insert(names.end(), option->names.begin(), option->names.end());
    if (!option->takes_value()) continue;
    if (option->choices.empty()) {
      file_values.insert(file_values.end(), option->names.begin(), option->names.end());
      continue;
    }
    arm += "        " + joined(option->names, "|") + ") COMPREPLY=($(compgen -W " + sh_quoted(joined(option->choices, " ")) +
           " -- \"$cur\")); return ;;\n";
  }
  if (!file_values.empty()) arm += "        " + joined(file_values, "|") + ") " + files;
  arm += "      esac\n";
  PositionalWords words = positional_words(command);
  if (&command == &root) {
    auto subcommands = subcommand_names(commands);
    words.choices.insert(words.choices.begin(), subcommands.begin(), subcommands.end());
  }
  arm += "      options=" + sh_quoted(joined(names, " ")) + " words=" + sh_quoted(joined(words.choices, " ")) +
         " files=" + (words.files ? "1" : "0") + " ;;\n";
  return arm;
}

// --- zsh ----------------------------------------------------------------------------------------

// Inside an _arguments spec, '[', ']' and ':' would end the description or the message.
std::string zsh_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string zsh_action(const std::vector<std::string>& choices) {
  return choices.empty() ? "_files" : "(" + joined(choices, " ") + ")";
}

std::vector<std::string> zsh_option_specs(const OptionModel& option) {
  std::vector<std::string> specs;
  const std::string exclusive = option.names.size() > 1 ? "(" + joined(option.names, " ") + ")" : "";
  for (const auto& name : option.names) {
    std::string spec = exclusive + name;
    if (option.takes_value()) spec += name.starts_with("--") ? "=" : "+";  // --name=V or --name V; -nV or -n V
    spec += "[" + zsh_escaped(option.description) + "]";
    if (option.takes_value()) spec += ":" + zsh_escaped(option.value_name) + ":" + zsh_action(option.choices);
    specs.push_back(sh_quoted(spec));
  }
  return specs;
}

std::string zsh_positional_spec(const PositionalModel& positional, size_t position) {
  std::string spec = positional.repeated ? "*" : std::to_string(position);
  spec += positional.required || positional.repeated ? ":" : "::";
  spec += zsh_escaped(positional.name) + ":" + zsh_action(positional.choices);
  return sh_quoted(spec);
}

std::string zsh_arguments(const std::vector<std::string>& specs, const std::string& flags) {
  std::string call = "      _arguments " + flags + "-s -S :";
  for (const auto& spec : specs) call += " \\\n        " + spec;
  return call;
}

std::string zsh_command_arm(const CommandModel& command, const CommandModel& root, const std::vector<CommandModel>& commands) {
  std::vector<std::string> specs;
  for (const OptionModel* option : options_in_effect(command, root)) {
    auto option_specs = zsh_option_specs(*option);
    specs.insert(specs.end(), option_specs.begin(), option_specs.end());
  }
  if (&command != &root) {
    for (size_t i = 0; i < command.positionals.size(); ++i) specs.push_back(zsh_positional_spec(command.positionals[i], i + 1));
    return "    (" + command.name + ")\n" + zsh_arguments(specs, "") + "\n      ;;\n";
  }
  // The first word is the root's target or a subcommand.
  std::string arm = "    (*)\n      local -a commands=(\n";
  for (size_t i = 1; i < commands.size(); ++i)
    arm += "        " + sh_quoted(zsh_escaped(commands[i].name) + ":" + commands[i].description) + "\n";
  arm += "      )\n      local curcontext=$curcontext state line\n";
  specs.push_back(sh_quoted("1: :->first"));
  arm += zsh_arguments(specs, "-C ") + " && return 0\n";
  arm += "      if [[ $state == first ]]; then\n        _describe -t commands command commands\n        _files\n      fi\n      ;;\n";
  return arm;
}

// --- fish ---------------------------------------------------------------------------------------

std::string fish_quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string fish_option_line(const std::string& program, const std::string& condition, const OptionModel& option) {
  std::string line = "complete -c " + program;
  if (!condition.empty()) line += " -n " + fish_quoted(condition);
  for (const auto& name : option.names) line += name.starts_with("--") ? " -l " + name.substr(2) : " -s " + name.substr(1);
  if (option.takes_value())
    line += option.choices.empty() ? " -r -F" : " -x -a " + fish_quoted(joined(option.choices, " "));
  return line + " -d " + fish_quoted(option.description) + "\n";
}

// The subcommands after which a root option is not accepted: those that do not fall through to
// the root, and those with an option of the same name.
std::vector<std::string> fish_excluding(const OptionModel& option, const std::vector<CommandModel>& commands) {
  std::vector<std::string> names;
  for (size_t i = 1; i < commands.size(); ++i) {
    auto in_effect = options_in_effect(commands[i], commands.front());
    if (std::find(in_effect.begin(), in_effect.end(), &option) == in_effect.end()) names.push_back(commands[i].name);
  }
  return names;
}

}  // namespace

std::string bash_completion(const std::vector<CommandModel>& commands) {
  const CommandModel& root = commands.front();
  const std::string& program = root.name;
  std::string s = "# bash completion for " + program + ", written by `" + program + " completion bash` from the options it parses.\n";
  s += "_" + program + "() {\n";
  s += "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n";
  s += "  # bash splits --option=value at '=': the value is what is completed\n";
  s += "  if [[ $cur == = ]]; then cur=\n  elif [[ $prev == = ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}\n  fi\n";
  s += "  local command= i\n";
  s += "  for ((i = 1; i < COMP_CWORD; i++)); do\n    case ${COMP_WORDS[i]} in\n";
  if (commands.size() > 1) s += "      " + joined(subcommand_names(commands), "|") + ") command=${COMP_WORDS[i]}; break ;;\n";
  if (auto values = root_value_options(root); !values.empty())
    s += "      " + joined(values, "|") + ") ((i++)) ;;  # its value is no subcommand\n";
  s += "    esac\n  done\n";
  s += "  local options words files\n  case $command in\n";
  for (size_t i = 1; i < commands.size(); ++i) s += bash_command_arm(commands[i], root, commands);
  s += bash_command_arm(root, root, commands);
  s += "  esac\n";
  s += "  if [[ $cur == -* ]]; then\n    COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n    return\n  fi\n";
  s += "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n";
  s += "  if ((files)); then\n    compopt -o filenames 2>/dev/null\n    COMPREPLY+=($(compgen -f -- \"$cur\"))\n  fi\n";
  s += "}\ncomplete -F _" + program + " " + program + "\n";
  return s;
}

std::string zsh_completion(const std::vector<CommandModel>& commands) {
  const CommandModel& root = commands.front();
  const std::string& program = root.name;
  std::string s = "#compdef " + program + "\n";
  s += "# zsh completion for " + program + ", written by `" + program + " completion zsh` from the options it parses.\n\n";
  s += "_" + program + "() {\n";
  s += "  local i command=\n";
  s += "  for ((i = 2; i < CURRENT; i++)); do\n    case ${words[i]} in\n";
  if (commands.size() > 1) s += "      (" + joined(subcommand_names(commands), "|") + ") command=${words[i]}; break ;;\n";
  if (auto values = root_value_options(root); !values.empty())
    s += "      (" + joined(values, "|") + ") (( i++ )) ;;  # its value is no subcommand\n";
  s += "    esac\n  done\n";
  s += "  if [[ -n $command ]]; then\n    # _arguments then sees the subcommand as the command\n";
  s += "    words=(\"${(@)words[i,-1]}\")\n    (( CURRENT -= i - 1 ))\n  fi\n";
  s += "  case $command in\n";
  for (size_t i = 1; i < commands.size(); ++i) s += zsh_command_arm(commands[i], root, commands);
  s += zsh_command_arm(root, root, commands);
  s += "  esac\n}\n\n";
  // Autoloaded from $fpath the file is the function's body; sourced, it registers the function.
  s += "if [[ $funcstack[1] == _" + program + " ]]; then\n  _" + program + " \"$@\"\nelse\n  compdef _" + program + " " +
       program + "\nfi\n";
  return s;
}

std::string fish_completion(const std::vector<CommandModel>& commands) {
  const CommandModel& root = commands.front();
  const std::string& program = root.name;
  std::string s = "# fish completion for " + program + ", written by `" + program + " completion fish` from the options it parses.\n\n";
  s += "# The first word: a subcommand, or the target (a file name)\n";
  for (size_t i = 1; i < commands.size(); ++i)
    s += "complete -c " + program + " -n __fish_use_subcommand -a " + commands[i].name + " -d " + fish_quoted(commands[i].description) + "\n";
  s += "\n# " + program + "'s own options\n";
  for (const auto& option : root.options) {
    auto excluding = fish_excluding(option, commands);
    s += fish_option_line(program, excluding.empty() ? "" : "not __fish_seen_subcommand_from " + joined(excluding, " "), option);
  }
  for (size_t i = 1; i < commands.size(); ++i) {
    const CommandModel& command = commands[i];
    const std::string condition = "__fish_seen_subcommand_from " + command.name;
    s += "\n# " + program + " " + command.name + "\n";
    for (const auto& option : command.options) s += fish_option_line(program, condition, option);
    for (const auto& positional : command.positionals)
      if (!positional.choices.empty())
        s += "complete -c " + program + " -n " + fish_quoted(condition) + (positional_words(command).files ? "" : " -f") + " -a " +
             fish_quoted(joined(positional.choices, " ")) + " -d " + fish_quoted(positional.description) + "\n";
  }
  return s;
}

void define_completion(CLI::App& command, CompletionFlags& flags) {
  flags.root = command.get_parent();
  command.add_option("shell", flags.shell, "bash, zsh or fish")->check(CLI::IsMember({"bash", "zsh", "fish"}));
  // Hidden from --help (the group "") and so from the completions and the man page themselves.
  command.add_flag("--man-page", flags.man_page, "print the man page (roff), as the build installs it")->group("");
}

int run_completion(const CompletionFlags& flags) {
  auto commands = describe_command_line(*flags.root);
  if (flags.man_page && !flags.shell.empty()) return fail(Error{ErrorKind::Usage, "--man-page", "", "takes no shell", {}});
  if (flags.man_page) return print(man_page(commands), 0);
  if (flags.shell == "bash") return print(bash_completion(commands), 0);
  if (flags.shell == "zsh") return print(zsh_completion(commands), 0);
  if (flags.shell == "fish") return print(fish_completion(commands), 0);
  return fail(Error{ErrorKind::Usage, "", "", "completion needs a shell: bash, zsh or fish",
                    "source <(hfinspect completion bash), or see docs/cli.md"});
}

}  // namespace hfi::cli
