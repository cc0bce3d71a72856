#include "app/inspect.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>

#include "core/quantity.hpp"
#include "core/text.hpp"
#include "http/http.hpp"
#include "http/url.hpp"
#include "pipeline/inspect.hpp"
#include "report/format.hpp"
#include "source/hub_settings.hpp"

namespace hfi::cli {
namespace {

// On a terminal, one self-overwriting line on stderr while responses arrive; nothing otherwise.
std::function<void(const http::Progress&)> progress_line() {
  if (!isatty(STDERR_FILENO) || env_flag("HF_HUB_DISABLE_PROGRESS_BARS")) return {};
  return [](const http::Progress& p) {
    if (p.total < 2) return;
    std::fprintf(stderr, "\r\033[Khfinspect: round %zu, %.*s %zu/%zu, %s in", p.round, static_cast<int>(p.what.size()), p.what.data(),
                 p.done, p.total, short_bytes(p.bytes_in).c_str());
    if (p.done == p.total) std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  };
}

// A retry is said on stderr on a terminal, or with -v: a run that waits says why.
std::function<void(const http::RetryNotice&)> retry_line(bool verbose) {
  if (!verbose && !isatty(STDERR_FILENO)) return {};
  return [](const http::RetryNotice& n) {
    std::fprintf(stderr, "\rhfinspect: retrying in %.1f s (attempt %d of %d): %s\n", static_cast<double>(n.wait_ms) / 1000.0, n.next_attempt,
                 n.attempts, n.reason.c_str());
    std::fflush(stderr);
  };
}

HubSettings hub_settings(const FetchFlags& flags) {
  auto settings = hub_settings_from_environment();
  settings.offline = settings.offline || flags.offline;
  if (!flags.token.empty()) {
    settings.token = flags.token;
    settings.token_source = "--token";
  }
  if (flags.timeout_s > 0) {
    settings.timeout_s = settings.metadata_timeout_s = flags.timeout_s;
    settings.timeout_error.reset();  // the variables are not read then
  }
  if (flags.retries >= 0) settings.retries = flags.retries;
  if (flags.deadline_s > 0) settings.deadline_s = flags.deadline_s;
  return settings;
}

Result<std::unique_ptr<http::Transport>> make_transport(const HubSettings& settings, bool verbose) {
  if (auto token = check_token(settings); !token) return token.error();
  if (settings.timeout_error) return *settings.timeout_error;
  http::ClientOptions client;
  client.token = settings.token;
  client.token_origin = http::origin_of(settings.endpoint);
  const bool web = client.token_origin.starts_with("http://") || client.token_origin.starts_with("https://");
  if (!web) return Error{ErrorKind::Usage, "HF_ENDPOINT", "", "'" + settings.endpoint + "' is not an http(s) URL", {}};
  client.connect_timeout_ms = settings.timeout_s * 1000;
  client.stall_timeout_s = settings.timeout_s;
  client.max_retries = settings.retries;
  client.run_deadline_s = settings.run_deadline_s();
  client.user_agent = std::string("hfinspect/") + HFINSPECT_VERSION;
  client.ca_bundle = settings.ca_bundle;
  client.progress = progress_line();
  client.on_retry = retry_line(verbose);
  return http::make_curl_transport(std::move(client));
}

}  // namespace

ReportOptions CommonFlags::report_options() const {
  ReportOptions options;
  options.context = context;
  options.batch = batch;
  if (!kv_dtype.empty()) options.kv_dtype = kv_dtype;
  options.gguf_variant = variant;
  return options;
}

bool CommonFlags::use_color() const {
  return color == "always" || (color == "auto" && isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR"));
}

void define_common_flags(CLI::App& app, CommonFlags& flags) {
  app.add_option("--revision", flags.fetch.revision, "branch, tag or commit (repository ids only)");
  app.add_option("--base", flags.fetch.base, "a PEFT adapter's base model, a directory or org/name (default: the one adapter_config.json names)")
      ->type_name("TARGET");
  app.add_flag("--offline", flags.fetch.offline, "read only the Hugging Face cache (also HF_HUB_OFFLINE=1)");
  app.add_option("--token", flags.fetch.token, "Hub access token (default: HF_TOKEN, then $HF_HOME/token)");
  app.add_option("--timeout", flags.fetch.timeout_s, "seconds a request may go without a connection, or below 512 bytes/s, before it is retried (default 10: HF_HUB_DOWNLOAD_TIMEOUT for file reads, HF_HUB_ETAG_TIMEOUT for metadata)")
      ->check(CLI::Range(1L, 3600L).description(""))
      ->type_name("SECONDS");
  app.add_option("--deadline", flags.fetch.deadline_s, "seconds the whole run may take per target (default 24 x --timeout)")
      ->check(CLI::Range(1L, 86400L).description(""))
      ->type_name("SECONDS");
  app.add_option("--retries", flags.fetch.retries, "retries for 408/429/5xx and dropped connections (default 5)")
      ->check(CLI::Range(0, 20).description(""))
      ->type_name("N");
  app.add_option_function<std::string>(
         "--ctx",
         [&flags](const std::string& text) {
           auto n = parse_token_count(text);
           if (!n || *n == 0 || *n > (uint64_t{1} << 40))
             throw CLI::ValidationError("--ctx", "'" + text + "' is not a context length: give tokens as 4096, 32k, 128K or 1M (k = 1024), at most 1024M");
           flags.context = *n;
         },
         "context length for the KV cache, attention FLOPs and memory (default: the model's maximum)")
      ->type_name("TOKENS");
  app.add_option("--batch", flags.batch, "sequences whose KV cache the memory total holds (default 1)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20).description(""))
      ->type_name("N");
  app.add_option("--kv-dtype", flags.kv_dtype,
                 "KV-cache element type: auto, bf16, fp16, fp8, fp32 (auto: the declared KV scheme, else torch_dtype)");
  app.add_option("--variant", flags.variant, "the GGUF variant to report on, by type (Q4_K_M) or file name (default: the only one)")
      ->type_name("TYPE|FILE");
  app.add_option("--color", flags.color, "auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}).description(""))
      ->type_name("WHEN");
  app.add_flag_callback(
      "-v,--verbose",
      [&flags] {
        flags.verbose = true;
        flags.fetch.verbose = true;
      },
      "log what is read, and every retry, to stderr");
}

std::string unread_option(const CLI::App& app, std::string_view read) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() == 0) continue;
    std::string name = option->get_name();
    bool listed = false;
    for (size_t at = read.find(name); at != std::string_view::npos; at = read.find(name, at + 1))
      listed = listed || ((at == 0 || read[at - 1] == ' ') && (at + name.size() == read.size() || read[at + name.size()] == ' '));
    if (!listed) return name;
  }
  return "";
}

size_t terminal_width() {
  if (const char* columns = std::getenv("COLUMNS"))
    if (auto n = parse_decimal(columns); n && *n >= 40 && *n <= 1000) return static_cast<size_t>(*n);
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 40) return size.ws_col;
  return kDefaultWidth;
}

void add_format_aliases(CLI::App& command, std::string& format) {
  // A short form that contradicts another format flag is refused rather than one of them ignored.
  auto alias = [&format](const char* flag, const char* value) {
    return [&format, flag, value] {
      if (format != "text" && format != value)
        throw CLI::ValidationError(flag, std::string("asks for ") + value + " output, but " + format + " was asked for too");
      format = value;
    };
  };
  command.add_flag_callback("--json", alias("--json", "json"), "same as --format json");
  command.add_flag_callback("--markdown", alias("--markdown", "markdown"), "same as --format markdown");
}

void define_inspect(CLI::App& app, InspectFlags& flags) {
  app.add_option("target", flags.target, "a directory, a cache snapshot, or org/name[@revision]");
  app.add_option("--format", flags.format, "text, json (docs/json-schema.md) or markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}).description(""))
      ->type_name("FORMAT");
  add_format_aliases(app, flags.format);
}

int run_inspect(const InspectFlags& flags, const CommonFlags& common, spdlog::logger& log) {
  auto report = inspect_target(flags.target, common.fetch, common.report_options(), log);
  if (!report) return fail(report.error());
  if (flags.format == "json") return print(render_json(*report), 0);
  if (flags.format == "markdown") return print(render_markdown(*report), 0);
  return print(render_text(*report, common.use_color(), terminal_width()), 0);
}

Result<Report> inspect_target(const std::string& target, const FetchFlags& flags, const ReportOptions& options, spdlog::logger& log) {
  auto resolved = resolve_target(target, flags.revision);
  if (!resolved) return resolved.error();
  InspectOptions inspect_options;
  inspect_options.report = options;
  inspect_options.hub = hub_settings(flags);
  inspect_options.base = flags.base;
  std::unique_ptr<http::Transport> transport;
  if (resolved->needs_hub(inspect_options.hub.offline)) {
    auto made = make_transport(inspect_options.hub, flags.verbose);
    if (!made) return made.error();
    transport = std::move(made.value());
  }
  log.info("inspecting {} ({}, cache {})", target, inspect_options.hub.offline ? "offline" : inspect_options.hub.endpoint,
           inspect_options.hub.cache_dir.string());
  auto report = inspect(*resolved, inspect_options, transport.get());
  if (transport) log.info("{} HTTP request(s)", transport->requests_sent());
  if (report) log.info("read {} shard header(s)", report->shard_count);
  return report;
}

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
  std::fprintf(stderr, "hfinspect: error: %s\n", printable(e.describe()).c_str());
  return exit_code(e.kind);
}

int print(const std::string& text, int code) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  return code;
}

int flushed(int code) {
  if (std::fflush(stdout) != 0 && code == 0) return 4;
  std::fflush(stderr);
  return code;
}

}  // namespace hfi::cli
