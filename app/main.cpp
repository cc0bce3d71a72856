// hfinspect: the command-line front end. It parses arguments, picks a Source, runs the library
// and maps errors onto the documented exit codes. Everything else lives in libhfinspect.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "http/http.hpp"
#include "http/url.hpp"
#include "report/report.hpp"
#include "source/hf_cache.hpp"
#include "source/hub_settings.hpp"
#include "source/local_source.hpp"
#include "source/open_repo.hpp"
#include "source/snapshot.hpp"

namespace {

// Exit codes (docs/cli.md): 0 ok, 1 a check failed, 2 usage, 3 not found / no access,
// 4 network, 5 malformed remote or local data.
int exit_code(hfi::ErrorKind kind) {
  switch (kind) {
    case hfi::ErrorKind::Usage: return 2;
    case hfi::ErrorKind::NotFound: return 3;
    case hfi::ErrorKind::Network: return 4;
    case hfi::ErrorKind::Malformed: return 5;
  }
  return 5;
}

int fail(const hfi::Error& e) {
  std::fprintf(stderr, "hfinspect: error: %s\n", e.describe().c_str());
  return exit_code(e.kind);
}

// On a terminal, one self-overwriting line on stderr while responses arrive; nothing otherwise.
std::function<void(const hfi::http::Progress&)> progress_line() {
  if (!isatty(STDERR_FILENO) || hfi::env_flag("HF_HUB_DISABLE_PROGRESS_BARS")) return {};
  return [](const hfi::http::Progress& p) {
    if (p.total < 2) return;
    std::fprintf(stderr, "\rhfinspect: reading %.*s %zu/%zu", static_cast<int>(p.what.size()), p.what.data(), p.done, p.total);
    if (p.done == p.total) std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  };
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"hfinspect: what a Hugging Face model is made of, from its metadata alone"};
  app.set_version_flag("--version", std::string("hfinspect ") + HFINSPECT_VERSION);
  std::string target;
  std::string revision;
  bool json = false, markdown = false, offline = false, verbose = false;
  uint64_t context = 8192;
  std::string kv_dtype;
  std::string color = "auto";
  std::string token;
  long timeout_s = 0;
  int retries = -1;
  app.add_option("target", target, "a directory, a cache snapshot, or org/name[@revision]")->required();
  app.add_option("--revision", revision, "branch, tag or commit (repository ids only)");
  app.add_flag("--offline", offline, "read only the Hugging Face cache (also HF_HUB_OFFLINE=1)");
  app.add_option("--token", token, "Hub access token (default: HF_TOKEN, then $HF_HOME/token)");
  app.add_option("--timeout", timeout_s, "seconds a request may stall before it is retried (default 10, HF_HUB_DOWNLOAD_TIMEOUT)")
      ->check(CLI::Range(1L, 3600L));
  app.add_option("--retries", retries, "retries for 408/429/5xx and dropped connections (default 5)")->check(CLI::Range(0, 20));
  auto* json_flag = app.add_flag("--json", json, "print the report as JSON (docs/json-schema.md)");
  app.add_flag("--markdown", markdown, "print the report as Markdown")->excludes(json_flag);
  app.add_option("--ctx", context, "context length for KV-cache and attention FLOPs")->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  app.add_option("--kv-dtype", kv_dtype, "KV-cache element type: bf16, fp16, fp8, fp32 (default: the config's torch_dtype)");
  app.add_option("--color", color, "auto, always or never")->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_flag("-v,--verbose", verbose, "log what is read to stderr");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  auto logger = spdlog::stderr_color_mt("hfinspect");
  logger->set_level(verbose ? spdlog::level::info : spdlog::level::warn);
  logger->set_pattern("hfinspect: %v");

  std::unique_ptr<hfi::Source> source;
  hfi::ReportOptions options;
  options.context = context;
  if (!kv_dtype.empty()) options.kv_dtype = kv_dtype;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(target, ec)) {
    if (!revision.empty()) return fail({hfi::ErrorKind::Usage, "--revision", "", "applies to repository ids, not directories", {}});
    source = std::make_unique<hfi::LocalSource>(target);
    options.repo_id = fs::path(target).lexically_normal().string();
  } else if (fs::exists(target, ec)) {
    return fail({hfi::ErrorKind::Usage, target, "", "is a file; give the directory that holds the model's files", {}});
  } else {
    auto ref = hfi::parse_repo_ref(target);
    if (!ref) return fail(ref.error());
    if (!revision.empty()) ref->revision = revision;
    options.repo_id = ref->repo_id;
    options.revision = ref->revision;
  }

  hfi::Result<hfi::Snapshot> snapshot = hfi::Error{};
  std::unique_ptr<hfi::http::Transport> transport;
  if (source) {
    snapshot = hfi::load_snapshot(*source);
  } else {
    hfi::RepoRef ref{options.repo_id, options.revision};
    auto settings = hfi::hub_settings_from_environment();
    settings.offline = settings.offline || offline;
    if (!token.empty()) {
      settings.token = token;
      settings.token_source = "--token";
    }
    if (timeout_s > 0) settings.timeout_s = timeout_s;
    if (retries >= 0) settings.retries = retries;
    if (!settings.offline) {
      hfi::http::ClientOptions client;
      client.token = settings.token;
      client.token_origin = hfi::http::origin_of(settings.endpoint);
      client.connect_timeout_ms = settings.timeout_s * 1000;
      client.stall_timeout_s = settings.timeout_s;
      client.max_retries = settings.retries;
      client.user_agent = std::string("hfinspect/") + HFINSPECT_VERSION + "; " + hfi::http::client_library_version();
      client.ca_bundle = settings.ca_bundle;
      client.progress = progress_line();
      if (client.token_origin.empty())
        return fail({hfi::ErrorKind::Usage, "HF_ENDPOINT", "", "'" + settings.endpoint + "' is not an http(s) URL", {}});
      transport = hfi::http::make_curl_transport(std::move(client));
    }
    logger->info("{} {} at {} (cache {})", settings.offline ? "reading from the cache" : "fetching", ref.repo_id,
                 ref.revision, settings.cache_dir.string());
    snapshot = hfi::load_repo(ref, settings, transport.get());
    if (transport) logger->info("{} HTTP request(s)", transport->requests_sent());
  }
  if (!snapshot) return fail(snapshot.error());
  logger->info("read {} shard header(s)", snapshot->shards.size());
  auto report = hfi::build_report(*snapshot, options);
  if (!report) return fail(report.error());

  std::string text;
  if (json) {
    text = hfi::render_json(*report);
  } else if (markdown) {
    text = hfi::render_markdown(*report);
  } else {
    bool use_color = color == "always" || (color == "auto" && isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR"));
    text = hfi::render_text(*report, use_color);
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  int code = std::fflush(stdout) == 0 ? 0 : 4;
  std::fflush(stderr);
  // The report is out: skip tearing down a few hundred thousand small objects one by one
  // (about a tenth of a large MoE run); the OS takes the memory back at once.
  std::_Exit(code);
}
