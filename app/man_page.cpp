#include "app/man_page.hpp"

#include <algorithm>
#include <cctype>

namespace hfi::cli {
namespace {

// Text as roff prints it: a backslash is roff's escape, and a line starting with '.' or '\''
// would be a request.
std::string roff(const std::string& text) {
  std::string out = text.starts_with(".") || text.starts_with("'") ? "\\&" : "";
  for (char c : text) out += c == '\\' ? std::string("\\e") : std::string(1, c);
  return out;
}

// An option name in bold, with real minus signs (a plain '-' may print as a hyphen).
std::string option_name(const std::string& name) {
  std::string out = "\\fB";
  for (char c : name) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out + "\\fR";
}

// `words`: "hfinspect", "hfinspect check".
std::string synopsis(const CommandModel& command, const std::string& words) {
  std::string line = ".B " + words + "\n[\\fIoptions\\fR]";
  for (const auto& positional : command.positionals) {
    std::string word = "\\fI" + roff(positional.name) + "\\fR" + (positional.repeated ? "..." : "");
    line += " " + (positional.required ? word : "[" + word + "]");
  }
  return line + "\n";
}

std::string option_item(const OptionModel& option) {
  std::vector<std::string> names;
  for (const auto& name : option.names) names.push_back(option_name(name));
  std::string item = ".TP\n" + joined(names, ", ");
  if (option.takes_value()) item += " \\fI" + roff(option.value_name) + "\\fR";
  item += "\n" + roff(option.description);
  // The choices, unless the description already names each of them.
  bool all_named = std::all_of(option.choices.begin(), option.choices.end(),
                               [&](const std::string& choice) { return option.description.find(choice) != std::string::npos; });
  if (!all_named) item += "; one of: " + roff(joined(option.choices, ", "));
  return item + "\n";
}

// Every subcommand has its own -h, --help: said once, under OPTIONS.
bool same_as_root(const OptionModel& option, const CommandModel& root) {
  return std::any_of(root.options.begin(), root.options.end(), [&](const OptionModel& own) {
    return own.names == option.names && own.description == option.description;
  });
}

std::string positional_item(const PositionalModel& positional) {
  return ".TP\n\\fI" + roff(positional.name) + "\\fR\n" + roff(positional.description) + "\n";
}

// What the program reads from the environment (lib/source/hub_settings.cpp, lib/source/hf_cache.cpp,
// app/inspect.cpp) and nothing more; test_completion.cpp finds each name the sources read in here.
const char* const kEnvironment = R"(.SH ENVIRONMENT
hfinspect reads these variables, most of them shared with the Hugging Face tools:
.TP
.B HF_TOKEN
The Hub access token when \fB\-\-token\fR is not given. Then \fBHUGGING_FACE_HUB_TOKEN\fR, then the
file \fBHF_TOKEN_PATH\fR names, else \fI$HF_HOME/token\fR. With \fBHF_HUB_DISABLE_IMPLICIT_TOKEN\fR
set (1, ON, YES or TRUE), none of them is read.
.TP
.B HF_HOME
Where the Hugging Face files are (the token, the hub cache); default
\fI$XDG_CACHE_HOME/huggingface\fR, else \fI$HOME/.cache/huggingface\fR.
.TP
.B HF_HUB_CACHE
The cache that repositories are read from and written to (also \fBHUGGINGFACE_HUB_CACHE\fR);
default \fI$HF_HOME/hub\fR.
.TP
.B HF_ENDPOINT
The Hub's address, for a mirror (the token is sent to it); default https://huggingface.co.
.TP
.B HF_HUB_OFFLINE
1, ON, YES or TRUE: read only the cache, as \fB\-\-offline\fR (also \fBTRANSFORMERS_OFFLINE\fR).
.TP
.B HF_HUB_DOWNLOAD_TIMEOUT
Seconds, 1 to 3600: how long a file read may stall before it is retried (default 10).
\fB\-\-timeout\fR sets it and \fBHF_HUB_ETAG_TIMEOUT\fR both.
.TP
.B HF_HUB_ETAG_TIMEOUT
Seconds, 1 to 3600: the same for the metadata requests, the repository info, the listing and the
JSON files (default 10, as in huggingface_hub).
.TP
.B HF_HUB_DISABLE_PROGRESS_BARS
1, ON, YES or TRUE: no progress line on a terminal's stderr.
.TP
.B NO_COLOR
Set: \fB\-\-color auto\fR prints no colours.
.TP
.B COLUMNS
The width text is laid out for, 40 to 1000; else the terminal's, else 80.
.TP
.B CURL_CA_BUNDLE
A CA bundle for TLS, for a TLS-inspecting proxy; else \fBREQUESTS_CA_BUNDLE\fR, else
\fBSSL_CERT_FILE\fR.
.TP
.BR https_proxy ", " http_proxy ", " all_proxy ", " no_proxy
Read by libcurl.
)";

const char* const kExitStatus = R"(.SH EXIT STATUS
.TP
.B 0
ok: the report, plan or script was printed
.TP
.B 1
a check failed: \fBcheck\fR found what it was told to fail on
.TP
.B 2
usage: a bad option, repository id or target
.TP
.B 3
not found or no access: a missing directory, repository, revision or file, a private or gated
repository, a rejected token, offline and not cached
.TP
.B 4
network: unreachable, timed out, retries exhausted; also a failed write to stdout
.TP
.B 5
malformed data: a header, index or config that breaks its format (the message names the file and
the field)
)";

}  // namespace

std::string man_page(const std::vector<CommandModel>& commands) {
  const CommandModel& root = commands.front();
  const std::string& program = root.name;
  std::string name_line = root.description;  // "hfinspect: what ...", as --help starts
  if (name_line.starts_with(program + ": ")) name_line.erase(0, program.size() + 2);

  std::string s = ".\\\" " + program + "(1), written by `" + program + " completion --man-page` from the options it parses.\n";
  std::string title = program;
  std::transform(title.begin(), title.end(), title.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  s += ".TH " + title + " 1 \"\" \"" + program + " " + HFINSPECT_VERSION + "\" \"User Commands\"\n";
  s += ".SH NAME\n" + program + " \\- " + roff(name_line) + "\n";
  s += ".SH SYNOPSIS\n";
  s += synopsis(root, program);
  for (size_t i = 1; i < commands.size(); ++i) s += ".br\n" + synopsis(commands[i], program + " " + commands[i].name);
  s += ".SH DESCRIPTION\n\\fB" + program + "\\fR";
  for (const auto& positional : root.positionals) s += " \\fI" + roff(positional.name) + "\\fR";
  s += ": " + roff(name_line) + ".\n";
  for (const auto& positional : root.positionals) s += positional_item(positional);
  s += ".SH OPTIONS\n";
  for (const auto& option : root.options) s += option_item(option);
  s += ".SH COMMANDS\n";
  for (size_t i = 1; i < commands.size(); ++i) {
    const CommandModel& command = commands[i];
    s += ".SS " + command.name + "\n" + roff(command.description) + ".\n";
    if (command.falls_through) s += "The options above are taken as well.\n";
    for (const auto& positional : command.positionals) s += positional_item(positional);
    for (const auto& option : command.options)
      if (!same_as_root(option, root)) s += option_item(option);
  }
  s += kEnvironment;
  s += kExitStatus;
  s += ".SH SEE ALSO\ndocs/cli.md in the source tree, and \\fB" + program + " \\-\\-help\\fR.\n";
  return s;
}

}  // namespace hfi::cli
