// hfinspect: the command-line front end. It parses arguments, hands the target to inspect.cpp
// (or the targets to check.cpp) and prints. Everything else lives in libhfinspect.
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#include <sys/auxv.h>
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HFI_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define HFI_SANITIZED 1
#endif
#endif

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "app/check.hpp"
#include "app/diff.hpp"
#include "app/inspect.hpp"

namespace {

// The report is out: skip tearing down a few hundred thousand small objects one by one (about a
// tenth of a large MoE run); the OS takes the memory back at once.
[[noreturn]] void finish(int code) {
  if (std::fflush(stdout) != 0 && code == 0) code = 4;
  std::fflush(stderr);
  std::_Exit(code);
}

// glibc hands freed memory back to the kernel and maps each large block afresh, so the next
// allocation faults its pages in again: a run that builds and drops ~100 MB of metadata spent a
// third of its time in page faults. This process is short-lived, so it keeps what it frees:
// DeepSeek-V3's warm run went from about 180 ms to 140 ms.
void keep_freed_memory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // blocks below 32 MB come from the heap, and return to it
  mallopt(M_TRIM_THRESHOLD, 1 << 30);   // never shrink the heap below 1 GB of free top
  // Grow the heap 64 MB at a time. That is also the size of a thread's heap (HEAP_MAX_SIZE), so a
  // thread's heap is writable, and marked for huge pages (below), in full from the start: glibc
  // 2.36 marks only the part a heap starts with, and grows it in 4 KB pages. With 32 MB, the
  // thread that decodes DeepSeek-V3's storage took 3,600-6,000 small page faults; now about 40,
  // and the cold run is 10 ms faster (258 against 269 ms, median of 20).
  mallopt(M_TOP_PAD, 64 << 20);
#endif
}

// Even kept, each fresh 4 KB page costs a fault on first touch: about 27,000 in a DeepSeek-V3 run.
// glibc can put its heaps, the threads' arenas included, on transparent huge pages (a fault per
// 2 MB), but only through the GLIBC_TUNABLES variable, which it reads before main. So when the
// kernel offers THP the process starts itself once more with glibc.malloc.hugetlb=1. The second
// start costs about 7 ms (loading libcurl's dependencies again); a warm DeepSeek-V3 run goes from
// 167 to 139 ms (median of 25, faults 27,000 to 8,000), a cold one by about as much. Not done
// when the user set glibc.malloc.hugetlb, under a sanitizer (its own allocator), or setuid.
void restart_with_huge_page_heaps(char** argv) {
#if defined(__GLIBC__) && !defined(HFI_SANITIZED)
  if (getauxval(AT_SECURE)) return;  // glibc would drop the variable, and we would start again forever
  const char* current = std::getenv("GLIBC_TUNABLES");
  std::optional<std::string> before = current ? std::optional<std::string>(current) : std::nullopt;
  if (before && before->find("glibc.malloc.hugetlb") != std::string::npos) return;
  char mode[64] = {};
  std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  if (!f) return;
  size_t n = std::fread(mode, 1, sizeof mode - 1, f);
  std::fclose(f);
  if (n == 0 || std::strstr(mode, "[never]")) return;
  std::string tunables = before ? *before + ":glibc.malloc.hugetlb=1" : "glibc.malloc.hugetlb=1";
  // By its real path, not /proc/self/exe: the process would be named "exe" in ps and top.
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0 || setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
  self[len] = '\0';
  execv(self, argv);
  // The binary is gone or not executable: carry on as we are, with the environment as it was.
  if (before) {
    setenv("GLIBC_TUNABLES", before->c_str(), 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
#else
  (void)argv;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  restart_with_huge_page_heaps(argv);
  keep_freed_memory();
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
