// A spec built from config.json while the shard headers are still travelling (LoadOptions::on_config,
// then build_report's `prepared`) must give the very report a spec built afterwards gives.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "report/report.hpp"
#include "source/local_source.hpp"
#include "support/inspect.hpp"

namespace {

namespace fs = std::filesystem;

// The report of `dir` with the spec prepared from the config the hook hands over, and how often
// the hook was called.
std::pair<hfi::Report, int> inspect_with_spec_ahead(const fs::path& dir, const hfi::ReportOptions& options) {
  hfi::LocalSource source(dir);
  int calls = 0;
  std::optional<hfi::PreparedSpec> prepared;
  hfi::LoadOptions load;
  load.on_config = [&](const hfi::ModelConfig& config) {
    ++calls;
    prepared = hfi::prepare_spec(config);
  };
  auto snap = hfi::load_snapshot(source, load);
  REQUIRE(snap.ok());
  auto report = hfi::build_report(*snap, options, std::move(prepared));
  REQUIRE(report.ok());
  return {std::move(report.value()), calls};
}

// Qwen3-8B's files as links (its shards are sparse and full-size), with `config` as config.json,
// or none.
fs::path qwen3_with_config(const std::string& name, const std::optional<std::string>& config) {
  fs::path dir = hfi::testing::materialized("Qwen/Qwen3-8B");
  fs::path copy = fs::temp_directory_path() / ("hfinspect-prepared-spec-" + name);
  fs::remove_all(copy);
  fs::create_directories(copy);
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename() != "config.json") fs::create_symlink(entry.path(), copy / entry.path().filename());
  if (config) std::ofstream(copy / "config.json") << *config;
  return copy;
}

}  // namespace

TEST_CASE("a spec prepared while the headers load gives the same report as one built after them") {
  // The largest spec, a config field no spec reads (granite's), a multimodal wrapper, and a
  // quantized checkpoint.
  auto repo = GENERATE(as<std::string>{}, "deepseek-ai/DeepSeek-V3", "ibm-granite/granite-3.1-1b-a400m-instruct",
                       "google/gemma-3-4b-it", "quantized/awq-gemm-deepseek-v3");
  CAPTURE(repo);
  hfi::ReportOptions options;
  options.repo_id = repo;
  auto after = hfi::testing::inspect_fixture(repo, options);
  auto [ahead, calls] = inspect_with_spec_ahead(hfi::testing::materialized(repo), options);
  CHECK(calls == 1);
  CHECK(hfi::render_json(ahead) == hfi::render_json(after.report));
  CHECK(hfi::render_text(ahead, false) == hfi::render_text(after.report, false));
}

TEST_CASE("a config without a spec, or no config: the same report with the spec prepared ahead or not") {
  struct Case {
    std::string name;
    std::optional<std::string> config;  // none: no config.json, so the hook is never called
    int calls;
  };
  auto c = GENERATE(values<Case>({{"unknown-type", R"({"model_type": "not_a_known_type", "hidden_size": 4096})", 1},
                                  {"no-config", std::nullopt, 0}}));
  CAPTURE(c.name);
  hfi::ReportOptions options;
  options.repo_id = "test/linked";
  auto dir = qwen3_with_config(c.name, c.config);
  auto after = hfi::testing::inspect_dir(dir, options);
  auto [ahead, calls] = inspect_with_spec_ahead(dir, options);
  CHECK(calls == c.calls);
  CHECK_FALSE(ahead.spec.has_value());
  CHECK(hfi::render_json(ahead) == hfi::render_json(after.report));
  fs::remove_all(dir);
}
