// hfinspect: the command-line front end. It parses arguments, hands the target to inspect.cpp
// (or the targets to check.cpp) and prints. Everything else lives in libhfinspect.
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "app/check.hpp"
#include "app/diff.hpp"
#include "app/inspect.hpp"
#include "core/exit_handoff.hpp"

namespace {

// The report is out: skip tearing down a few hundred thousand small objects one by one (about a
// tenth of a large MoE run), and leave the kernel's freeing of the pages to a helper that outlives
// the exit (core/exit_handoff.hpp): 7-8 ms of a cold DeepSeek-V3 run.
[[noreturn]] void finish(int code) {
  if (std::fflush(stdout) != 0 && code == 0) code = 4;
  std::fflush(stderr);
  hfi::exit_leaving_teardown(code);
}

// glibc hands freed memory back to the kernel and maps each large block afresh, so the next
// allocation faults its pages in again: a run that builds and drops ~100 MB of metadata spent a
// third of its time in page faults. This process is short-lived, so it keeps what it frees:
// DeepSeek-V3's warm run went from about 180 ms to 140 ms.
void keep_freed_memory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // blocks below 32 MB come from the heap, and return to it
  mallopt(M_TRIM_THRESHOLD, 1 << 30);   // never shrink the heap below 1 GB of free top
  // Grow the heap 64 MB at a time (also the size of a thread's heap, which is then writable in
  // full from the start) rather than by what each request lacks: a cold DeepSeek-V3 run spends
  // 176 ms of CPU instead of 191 in the same wall time (median of 12). Untouched pages cost nothing.
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

// The heaps stay on 4 KB pages. glibc can put them on 2 MB transparent huge pages
// (GLIBC_TUNABLES=glibc.malloc.hugetlb=1), and hfinspect once restarted itself to ask for that:
// fewer faults, and faster in a loop of runs. But a VM that hands free memory back to its host
// (virtio-balloon free page reporting) gives a new process 2 MB pages the host must supply again,
// at about 2.4 ms per MB against 0.45 for 4 KB pages (bench/fresh_memory.cpp), unless another
// process freed them a moment before. Measured on this 2-core VM with a 2 s pause before each run,
// as a user runs it: a cold DeepSeek-V3 inspection took 313 ms with huge pages and 267 ms without,
// a warm one 160 and 96 ms (medians of 10-12). Back to back, huge pages win (250 against 270 ms),
// which is how the restart had been measured. Where huge pages pay, the variable still works.

// libcurl4-openssl speaks TLS through OpenSSL. GnuTLS comes along only because librtmp links it,
// and its constructor sets the library up as it is loaded: about 0.8 ms of the 6 ms that loading
// libcurl adds before the first request (medians of 60 loads). GnuTLS's documented switch skips
// that; librtmp calls gnutls_global_init itself before any use, which hfinspect never makes.
// Set before any thread starts (setenv is not safe beside getenv); a value the user set stays.
void skip_gnutls_implicit_init() { setenv("GNUTLS_NO_IMPLICIT_INIT", "1", 0); }

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory();
  skip_gnutls_implicit_init();
  CLI::App app{"hfinspect: what a Hugging Face model is made of, from its metadata alone"};
  app.set_version_flag("--version", std::string("hfinspect ") + HFINSPECT_VERSION);
  std::string target;
  hfi::cli::FetchFlags fetch;
  bool json = false, markdown = false, verbose = false;
  uint64_t context = 8192;
  std::string kv_dtype;
  std::string color = "auto";
  app.add_option("target", target, "a directory, a cache snapshot, or org/name[@revision]");
  app.add_option("--revision", fetch.revision, "branch, tag or commit (repository ids only)");
  app.add_flag("--offline", fetch.offline, "read only the Hugging Face cache (also HF_HUB_OFFLINE=1)");
  app.add_option("--token", fetch.token, "Hub access token (default: HF_TOKEN, then $HF_HOME/token)");
  app.add_option("--timeout", fetch.timeout_s, "seconds a request may stall before it is retried (default 10, HF_HUB_DOWNLOAD_TIMEOUT)")
      ->check(CLI::Range(1L, 3600L));
  app.add_option("--retries", fetch.retries, "retries for 408/429/5xx and dropped connections (default 5)")->check(CLI::Range(0, 20));
  auto* json_flag = app.add_flag("--json", json, "print the report as JSON (docs/json-schema.md)");
  app.add_flag("--markdown", markdown, "print the report as Markdown")->excludes(json_flag);
  app.add_option("--ctx", context, "context length for KV-cache and attention FLOPs")->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  app.add_option("--kv-dtype", kv_dtype, "KV-cache element type: bf16, fp16, fp8, fp32 (default: the config's torch_dtype)");
  app.add_option("--color", color, "auto, always or never")->check(CLI::IsMember({"auto", "always", "never"}));
  app.add_flag("-v,--verbose", verbose, "log what is read to stderr");

  hfi::cli::CheckFlags check_flags;
  auto* check = app.add_subcommand("check", "for CI: exit 1 when a target holds findings of the selected kinds that the baseline does not accept");
  check->fallthrough();  // --offline, --token, --revision... before or after the targets
  check->add_option("targets", check_flags.targets, "directories or org/name[@revision]")->required();
  check->add_option("--fail-on", check_flags.fail_on,
                    "comma-separated: unknown-fields, unexplained, missing, shape-mismatch, index-mismatch, quant (default: all)");
  check->add_option("--baseline", check_flags.baseline, "accepted findings, as written by --write-baseline");
  check->add_option("--write-baseline", check_flags.write_baseline, "write every selected finding to this file and exit 0");
  check->add_option("--format", check_flags.format, "text, json or github (Actions annotations)")
      ->check(CLI::IsMember({"text", "json", "github"}));
  hfi::cli::DiffFlags diff_flags;
  auto* diff = app.add_subcommand("diff", "what changed between two models (config fields, figures, tensor patterns); "
                                          "with one target, against its nearest bundled reference config");
  diff->fallthrough();
  diff->add_option("a", diff_flags.a, "directory or org/name[@revision]")->required();
  diff->add_option("b", diff_flags.b, "directory or org/name[@revision]; omitted: A's nearest bundled reference");
  diff->add_option("--format", diff_flags.format, "text, json or markdown")->check(CLI::IsMember({"text", "json", "markdown"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  auto logger = spdlog::stderr_color_mt("hfinspect");
  logger->set_level(verbose ? spdlog::level::info : spdlog::level::warn);
  logger->set_pattern("hfinspect: %v");

  hfi::ReportOptions options;
  options.context = context;
  if (!kv_dtype.empty()) options.kv_dtype = kv_dtype;
  if (check->parsed()) finish(hfi::cli::run_check(check_flags, fetch, options, *logger));
  bool use_color = color == "always" || (color == "auto" && isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR"));
  if (diff->parsed()) {
    diff_flags.color = use_color;
    finish(hfi::cli::run_diff(diff_flags, fetch, options, *logger));
  }
  if (target.empty()) {
    std::fprintf(stderr, "%s", app.help().c_str());
    return 2;
  }

  std::vector<hfi::Snapshot> read;  // never freed: finish() ends the process
  auto report = hfi::cli::inspect_target(target, fetch, options, *logger, &read);
  if (!report) return hfi::cli::fail(report.error());
  std::string text;
  if (json) {
    text = hfi::render_json(*report);
  } else if (markdown) {
    text = hfi::render_markdown(*report);
  } else {
    text = hfi::render_text(*report, use_color);
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  finish(0);
}
