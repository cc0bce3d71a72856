#include "app/inspect.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <system_error>

#include "http/http.hpp"
#include "http/url.hpp"
#include "source/hf_cache.hpp"
#include "source/hub_settings.hpp"
#include "source/local_source.hpp"
#include "source/open_repo.hpp"
#include "source/snapshot.hpp"

namespace hfi::cli {
namespace {

// On a terminal, one self-overwriting line on stderr while responses arrive; nothing otherwise.
std::function<void(const http::Progress&)> progress_line() {
  if (!isatty(STDERR_FILENO) || env_flag("HF_HUB_DISABLE_PROGRESS_BARS")) return {};
  return [](const http::Progress& p) {
    if (p.total < 2) return;
    std::fprintf(stderr, "\rhfinspect: reading %.*s %zu/%zu", static_cast<int>(p.what.size()), p.what.data(), p.done, p.total);
    if (p.done == p.total) std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  };
}

Result<Snapshot> load_remote(const RepoRef& ref, const FetchFlags& flags, spdlog::logger& log, LoadOptions load) {
  auto settings = hub_settings_from_environment();
  settings.offline = settings.offline || flags.offline;
  if (!flags.token.empty()) {
    settings.token = flags.token;
    settings.token_source = "--token";
  }
  if (flags.timeout_s > 0) settings.timeout_s = flags.timeout_s;
  if (flags.retries >= 0) settings.retries = flags.retries;
  std::unique_ptr<http::Transport> transport;
  if (!settings.offline) {
    http::ClientOptions client;
    client.token = settings.token;
    client.token_origin = http::origin_of(settings.endpoint);
    client.connect_timeout_ms = settings.timeout_s * 1000;
    client.stall_timeout_s = settings.timeout_s;
    client.max_retries = settings.retries;
    client.user_agent = std::string("hfinspect/") + HFINSPECT_VERSION;
    client.ca_bundle = settings.ca_bundle;
    client.progress = progress_line();
    if (client.token_origin.empty())
      return Error{ErrorKind::Usage, "HF_ENDPOINT", "", "'" + settings.endpoint + "' is not an http(s) URL", {}};
    transport = http::make_curl_transport(std::move(client));
  }
  log.info("{} {} at {} (cache {})", settings.offline ? "reading from the cache" : "fetching", ref.repo_id, ref.revision,
           settings.cache_dir.string());
  auto snapshot = load_repo(ref, settings, transport.get(), load);
  if (transport) log.info("{} HTTP request(s)", transport->requests_sent());
  return snapshot;
}

}  // namespace

int exit_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Usage: return 2;
    case ErrorKind::NotFound: return 3;
    case ErrorKind::Network: return 4;
    case ErrorKind::Malformed: return 5;
  }
  return 5;
}

int fail(const Error& e) {
  std::fprintf(stderr, "hfinspect: error: %s\n", e.describe().c_str());
  return exit_code(e.kind);
}

Result<Report> inspect_target(const std::string& target, const FetchFlags& flags, ReportOptions options, spdlog::logger& log,
                              std::vector<Snapshot>* keep) {
  namespace fs = std::filesystem;
  std::error_code ec;
  Result<Snapshot> snapshot = Error{};
  DeferredWork cache_writes;  // the shard-header pack is written while the report is built
  // The architecture spec needs only config.json: it is built on a thread of its own while the
  // shard headers travel, rather than after the last one.
  std::future<PreparedSpec> spec_ahead;
  LoadOptions load;
  load.deferred_writes = &cache_writes;
  load.on_config = [&spec_ahead](const ModelConfig& config) {
    try {
      spec_ahead = std::async(std::launch::async, prepare_spec, config);
    } catch (const std::system_error&) {  // no thread to be had: build_report builds it
    }
  };
  if (fs::is_directory(target, ec)) {
    if (!flags.revision.empty()) return Error{ErrorKind::Usage, "--revision", "", "applies to repository ids, not directories", {}};
    LocalSource source(target);
    options.repo_id = fs::path(target).lexically_normal().string();
    snapshot = load_snapshot(source, load);
  } else if (fs::exists(target, ec)) {
    return Error{ErrorKind::Usage, target, "", "is a file; give the directory that holds the model's files", {}};
  } else {
    auto ref = parse_repo_ref(target);
    if (!ref) return ref.error();
    if (!flags.revision.empty()) ref->revision = flags.revision;
    options.repo_id = ref->repo_id;
    options.revision = ref->revision;
    snapshot = load_remote(*ref, flags, log, load);
  }
  if (!snapshot) return snapshot.error();
  log.info("read {} shard header(s)", snapshot->shards.size());
  std::optional<PreparedSpec> prepared;
  if (spec_ahead.valid()) prepared = spec_ahead.get();
  auto report = build_report(*snapshot, options, std::move(prepared));
  for (auto& note : cache_writes.wait()) {
    if (!report) break;
    auto& notes = report->notes;
    if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(std::move(note));  // said once
  }
  if (keep) keep->push_back(std::move(*snapshot));
  return report;
}

}  // namespace hfi::cli
