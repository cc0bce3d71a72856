// hfinspect-testhub: runs the test hub as a standalone process for scripts and benchmarks.
//   hfinspect-testhub --fixtures DIR [--latency-ms N] [--ready-file PATH] [--tree-page-size N]
// Prints "endpoint=<url>" and "cdn=<url>" (with --tls-certificate also "tls_endpoint=<url>" and
// "cdn_tls=<url>"), writes the endpoint (then the TLS endpoint) to the ready file once listening,
// and serves until SIGINT or SIGTERM. Control routes: GET /_testhub/requests, POST /_testhub/reset,
// POST /_testhub/fault (JSON rule), POST /_testhub/faults/clear.
#include <CLI/CLI.hpp>
#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "hub/test_hub.hpp"

int main(int argc, char** argv) {
  CLI::App app{"A Hugging Face Hub look-alike on 127.0.0.1 for tests and benchmarks"};
  std::string fixtures, ready_file;
  int latency_ms = 0;
  size_t page_size = 1000;
  std::vector<std::string> private_repos, gated_repos;
  std::string tls_certificate;
  uint32_t h2_streams = 100;
  app.add_option("--fixtures", fixtures, "fixtures root: every <org>/<name> directory is a repo")->required();
  app.add_option("--latency-ms", latency_ms, "delay added before every response, both origins")->check(CLI::NonNegativeNumber);
  app.add_option("--ready-file", ready_file, "written with the endpoint once the servers listen");
  app.add_option("--tree-page-size", page_size, "entries per /tree page")->check(CLI::PositiveNumber);
  app.add_option("--private", private_repos, "repo ids that need a token");
  app.add_option("--gated", gated_repos, "repo ids whose files are gated");
  app.add_option("--tls-certificate", tls_certificate,
                 "also serve HTTP/2 over TLS on both origins; the certificate to trust is written here (PEM)");
  app.add_option("--h2-max-streams", h2_streams, "SETTINGS_MAX_CONCURRENT_STREAMS of the TLS listeners")
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  // Block the stop signals before any thread starts so that only sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  try {
    hfi::testhub::Options options;
    options.fixtures = fixtures;
    options.latency = std::chrono::milliseconds(latency_ms);
    options.tree_page_size = page_size;
    options.private_repos.insert(private_repos.begin(), private_repos.end());
    options.gated_repos.insert(gated_repos.begin(), gated_repos.end());
    const bool tls = !tls_certificate.empty();
    options.tls = tls;
    options.h2_max_concurrent_streams = h2_streams;
    hfi::testhub::TestHub hub(std::move(options));
    std::cout << "endpoint=" << hub.endpoint() << "\ncdn=" << hub.cdn_origin() << "\n";
    if (tls) {
      std::ofstream(tls_certificate) << hub.tls_certificate_pem();
      std::cout << "tls_endpoint=" << hub.tls_endpoint() << "\ncdn_tls=" << hub.cdn_tls_origin() << "\n";
    }
    std::cout << std::flush;
    if (!ready_file.empty()) {
      // Written under a temporary name and renamed so a watcher never reads half a line.
      std::string tmp = ready_file + ".tmp";
      std::ofstream(tmp) << hub.endpoint() << "\n" << (tls ? hub.tls_endpoint() + "\n" : "");
      std::filesystem::rename(tmp, ready_file);
    }
    int sig = 0;
    sigwait(&stop_signals, &sig);
    std::cerr << "hfinspect-testhub: signal " << sig << ", stopping" << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "hfinspect-testhub: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
