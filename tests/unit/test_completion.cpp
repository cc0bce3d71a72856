// `hfinspect completion` and the man page: the bash script loads and completes in a real bash, and
// every script and the man page name what `hfinspect --help` lists (CLI11's own rendering of the
// definitions, read here independently of the generator).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "arch/spec.hpp"
#include "core/json.hpp"
#include "support/fixture_repo.hpp"
#include "support/run_cli.hpp"

namespace fs = std::filesystem;

namespace {

using Run = hfi::testing::CliRun;

Run run(const std::string& args) { return hfi::testing::run_cli(args); }

// Runs `script` in bash from an empty directory (so that file-name completions add nothing).
Run bash(const std::string& script) {
  fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "completion";
  fs::remove_all(dir);
  fs::create_directories(dir / "empty");
  std::ofstream(dir / "script.sh") << "cd " << (dir / "empty").string() << " || exit 99\n" << script;
  std::string cmd = "bash " + (dir / "script.sh").string() + " >" + (dir / "out").string() + " 2>" + (dir / "err").string() + " </dev/null";
  int status = std::system(cmd.c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = hfi::testing::slurp(dir / "out");
  r.err = hfi::testing::slurp(dir / "err");
  return r;
}

// The words bash offers for the command line `words` (the last one being completed).
std::string bash_offers(const std::string& words) {
  auto r = bash("source <(" + std::string(HFINSPECT_BINARY) + " completion bash) || exit 98\n"
                "COMP_WORDS=(" + words + "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n"
                "_hfinspect; echo \"${COMPREPLY[*]}\"\n");
  INFO(r.err);
  REQUIRE(r.code == 0);
  return r.out;
}

// The lines of a `--help` section ("Subcommands:", "Options:") up to the next blank line.
std::vector<std::string> help_section(const std::string& help, const std::string& title) {
  std::vector<std::string> lines;
  auto at = help.find("\n" + title + "\n");
  REQUIRE(at != std::string::npos);
  std::istringstream in(help.substr(at + title.size() + 2));
  for (std::string line; std::getline(in, line) && !line.empty();) lines.push_back(line);
  return lines;
}

std::vector<std::string> subcommands() {
  std::vector<std::string> names;
  for (const auto& line : help_section(run("--help").out, "Subcommands:")) names.push_back(line.substr(2, line.find(' ', 2) - 2));
  REQUIRE(names.size() >= 4);
  return names;
}

// Every --name in the first column of the root's Options section ("-h,--help", "--ctx").
std::vector<std::string> root_long_options() {
  std::vector<std::string> names;
  static const std::regex long_name("--[a-z0-9-]+");
  for (const auto& line : help_section(run("--help").out, "Options:")) {
    std::string column = line.substr(2, line.find(' ', 2) - 2);
    for (std::sregex_iterator m(column.begin(), column.end(), long_name), end; m != end; ++m) names.push_back(m->str());
  }
  REQUIRE(names.size() >= 10);
  return names;
}

}  // namespace

TEST_CASE("the bash completion loads in bash and completes subcommands, choices and options", "[completion]") {
  auto loaded = bash("source <(" + std::string(HFINSPECT_BINARY) + " completion bash) && complete -p hfinspect\n");
  INFO(loaded.err);
  CHECK(loaded.code == 0);
  CHECK_THAT(loaded.out, Catch::Contains("_hfinspect") && Catch::Contains("hfinspect"));

  CHECK(bash_offers("hfinspect fi") == "fit\n");
  CHECK(bash_offers("hfinspect fit --gpu-m") == "--gpu-mem\n");
  CHECK(bash_offers("hfinspect completion ''") == "bash zsh fish\n");
  // --color's IsMember check is described as "" in --help; its choices are read all the same.
  CHECK(bash_offers("hfinspect --color a") == "auto always\n");
  CHECK(bash_offers("hfinspect diff --color = n") == "never\n");  // --color=n, as bash splits it
  // `fit --gpu` takes the library's presets.
  CHECK_THAT(bash_offers("hfinspect fit --gpu h100"), Catch::Contains("h100-80gb"));
  // The hidden --man-page is no completion.
  CHECK_THAT(bash_offers("hfinspect completion --m"), !Catch::Contains("man-page"));
}

TEST_CASE("the zsh and fish completions name every subcommand", "[completion]") {
  for (const char* shell : {"zsh", "fish"}) {
    INFO(shell);
    auto r = run(std::string("completion ") + shell);
    REQUIRE(r.code == 0);
    CHECK(r.out.size() > 1000);
    for (const auto& name : subcommands()) {
      INFO(name);
      CHECK_THAT(r.out, Catch::Contains(shell == std::string("zsh") ? "(" + name + ")" : "-a " + name));
    }
    CHECK_THAT(r.out, Catch::Contains("h100-80gb") && Catch::Contains("auto always never") && !Catch::Contains("man-page"));
  }
}

TEST_CASE("the man page names every subcommand and every option of the root command", "[completion]") {
  auto r = run("completion --man-page");
  REQUIRE(r.code == 0);
  std::string page = std::regex_replace(r.out, std::regex(R"(\\-)"), "-");  // roff's minus signs
  CHECK_THAT(page, Catch::StartsWith(".\\\"") && Catch::Contains(".TH HFINSPECT 1"));
  for (const auto& name : subcommands()) CHECK_THAT(page, Catch::Contains(".SS " + name + "\n"));
  for (const auto& name : root_long_options()) CHECK_THAT(page, Catch::Contains("\\fB" + name + "\\fR"));
  for (const char* section : {".SH ENVIRONMENT", "HF_TOKEN", "HF_HUB_CACHE", "NO_COLOR", "CURL_CA_BUNDLE", ".SH EXIT STATUS"})
    CHECK_THAT(page, Catch::Contains(section));
}

TEST_CASE("the man page describes every variable the program reads", "[completion]") {
  // Variables are read by name in lib/ and app/: through getenv("NAME"), or as a Hugging Face name
  // handed to the helpers of lib/source/hub_settings.cpp.
  const fs::path project = fs::path(HFINSPECT_FIXTURES_DIR).parent_path();
  static const std::regex variable(R"re(getenv\("([A-Za-z_]+)"\)|"((HF|HUGGING_FACE|HUGGINGFACE|TRANSFORMERS)_[A-Z_]+)")re");
  std::set<std::string> read;
  for (const char* dir : {"lib", "app"})
    for (const auto& entry : fs::recursive_directory_iterator(project / dir)) {
      if (entry.path().extension() != ".cpp" && entry.path().extension() != ".hpp") continue;
      std::string text = hfi::testing::slurp(entry.path());
      for (std::sregex_iterator m(text.begin(), text.end(), variable), end; m != end; ++m)
        read.insert((*m)[1].matched ? (*m)[1].str() : (*m)[2].str());
    }
  REQUIRE(read.count("HF_TOKEN") == 1);
  REQUIRE(read.count("NO_COLOR") == 1);
  std::string page = run("completion --man-page").out;
  std::string environment = page.substr(page.find(".SH ENVIRONMENT"), page.find(".SH EXIT STATUS") - page.find(".SH ENVIRONMENT"));
  for (const auto& name : read) CHECK_THAT(environment, Catch::Contains(name));
}

TEST_CASE("the build's man page and completions are what the binary prints", "[completion]") {
  const fs::path dir = HFINSPECT_CLI_DOCS_DIR;
  CHECK(hfi::testing::slurp(dir / "hfinspect.1") == run("completion --man-page").out);
  CHECK(hfi::testing::slurp(dir / "completions" / "hfinspect.bash") == run("completion bash").out);
  CHECK(hfi::testing::slurp(dir / "completions" / "_hfinspect") == run("completion zsh").out);
  CHECK(hfi::testing::slurp(dir / "completions" / "hfinspect.fish") == run("completion fish").out);
}

TEST_CASE("completion for an unknown shell, or none, is a usage error naming the shells", "[completion]") {
  auto powershell = run("completion powershell");
  CHECK(powershell.code == 2);
  CHECK_THAT(powershell.err, Catch::Contains("bash") && Catch::Contains("zsh") && Catch::Contains("fish"));
  CHECK(powershell.out.empty());
  auto none = run("completion");
  CHECK(none.code == 2);
  CHECK_THAT(none.err, Catch::Contains("bash, zsh or fish"));
  CHECK(run("completion bash --man-page").code == 2);
}

TEST_CASE("--list-architectures: every registered model_type with its spec and proving fixture; the README shows the same list") {
  auto r = hfi::testing::run_cli("--list-architectures");
  REQUIRE(r.code == 0);
  const auto types = hfi::supported_model_types();
  CHECK_THAT(r.out, Catch::StartsWith(std::to_string(types.size()) + " model_types have a spec; "));
  std::map<std::string, std::string> line_of;  // model_type -> its line
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) line_of[line.substr(0, line.find(' '))] = line;
  for (const auto& type : types) {
    INFO(type);
    REQUIRE(line_of.count(type));
    CHECK_THAT(line_of[type], Catch::Contains("_spec"));
  }
  // Every fixture folder holding a published figure proves the type its config names, when that
  // type is registered: the type's line does not say "-".
  // A pipeline's component folder (org/name/text_encoder) counts too.
  for (const auto& entry : fs::recursive_directory_iterator(hfi::testing::fixtures_dir())) {
    const fs::path folder = entry.path().parent_path();
    if (entry.path().filename() != "published.json" || !fs::exists(folder / "config.json")) continue;
    auto config = hfi::parse_json(hfi::testing::slurp(folder / "config.json"), "config.json");
    REQUIRE(config);
    const hfi::Json* type = config->find("model_type");
    if (!type || !type->is_string() || !line_of.count(type->as_string())) continue;
    INFO(folder.string());
    CHECK_FALSE(line_of[type->as_string()].ends_with(" -"));
  }
  // The README's list is this output, verbatim.
  std::string readme = hfi::testing::slurp(hfi::testing::fixtures_dir() / ".." / "README.md");
  const std::string marker = "<!-- hfinspect --list-architectures -->\n```text\n";
  auto begin = readme.find(marker);
  REQUIRE(begin != std::string::npos);
  begin += marker.size();
  auto end = readme.find("```", begin);
  REQUIRE(end != std::string::npos);
  CHECK(readme.substr(begin, end - begin) == r.out);
}
