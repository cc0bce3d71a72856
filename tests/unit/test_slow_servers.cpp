// Servers that are slow, stalled or failing on purpose (test hub faults): every run ends, within
// the limits docs/cli.md states, and one file never costs more than one budget of retries.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "http/http.hpp"
#include "hub/test_hub.hpp"
#include "support/fixture_repo.hpp"
#include "support/hub_runs.hpp"
#include "support/run_cli.hpp"

namespace fs = std::filesystem;
using hfi::testhub::FaultKind;
using hfi::testhub::TestHub;
using hfi::testing::count_if;
using hfi::testing::fixture_hub;
using hfi::testing::hub_env;
using hfi::testing::run_cli;
using hfi::testing::total_params;
using Clock = std::chrono::steady_clock;

namespace {

fs::path slow_dir(const std::string& name) { return hfi::testing::fresh_work_dir("slow/" + name); }

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

TEST_CASE("a server that drips every answer, a byte at a time, ends the run with exit 4 within 60 s", "[remote][slow]") {
  TestHub hub(fixture_hub());
  // Two bytes a second: above zero, so a pure stall timeout would wait on it for ever.
  hub.add_fault({FaultKind::Drip, "hub", "", 200, -1, "", -1, std::chrono::milliseconds(500)});
  const auto start = Clock::now();
  auto r = run_cli("Qwen/Qwen3-30B-A3B --timeout 2", hub_env(hub, slow_dir("drip")));
  const double took = seconds_since(start);
  INFO(r.err);
  CHECK(r.code == 4);
  CHECK_THAT(r.err, Catch::Contains("fewer than 512 bytes/s, for 2 s"));
  CHECK_THAT(r.err, Catch::Contains("--timeout"));
  // Six attempts of 2 s each and 23 s of backoff between them, all files side by side.
  CHECK(took < 60);
}

TEST_CASE("--deadline ends a run whose server holds every request", "[remote][slow]") {
  TestHub hub(fixture_hub());
  hub.add_fault({FaultKind::Hang, "hub", "", 200, -1, "", -1, {}});
  const auto start = Clock::now();
  auto r = run_cli("Qwen/Qwen3-30B-A3B --timeout 60 --deadline 3", hub_env(hub, slow_dir("deadline")));
  const double took = seconds_since(start);
  INFO(r.err);
  CHECK(r.code == 4);
  CHECK_THAT(r.err, Catch::Contains("deadline of 3 s for the whole run"));
  CHECK(took >= 3);
  CHECK(took < 10);
}

TEST_CASE("a transfer that keeps above the low-speed floor is still cut at its deadline, sized by Content-Length", "[remote][slow]") {
  TestHub hub(fixture_hub());
  hub.add_repo("test/drip", {{"notes.txt", {std::string(2000, 'x'), 2000, false}}});
  // The git file's bytes come from the resolve-cache route after the Hub's 307; ten bytes a
  // second there makes 2,000 bytes take 200 s.
  hub.add_fault({FaultKind::Drip, "hub", "resolve-cache", 200, -1, "", -1, std::chrono::milliseconds(100)});
  hfi::http::ClientOptions options;
  options.stall_timeout_s = 1;
  options.low_speed_bytes_per_s = 1;  // the drip stays above it
  options.max_retries = 0;
  auto transport = hfi::http::make_curl_transport(options);
  hfi::http::Request request;
  request.url = hub.endpoint() + "/test/drip/resolve/main/notes.txt";
  request.max_body = 64u << 20;  // sized by this, the deadline would be 17 minutes away
  const auto start = Clock::now();
  auto response = transport->perform({request}, "notes").front();
  const double took = seconds_since(start);
  CHECK(response.status == 0);
  CHECK(response.timed_out);
  CHECK_THAT(response.transport_error, Catch::Contains("deadline"));
  // Six stall periods of 1 s, plus 2,000 bytes at 64 KiB/s.
  CHECK(took > 5.5);
  CHECK(took < 12);
}

TEST_CASE("one budget of retries per file: a failed read-ahead is not retried again by the loader", "[remote][slow]") {
  TestHub hub(fixture_hub());
  // The CDN's signed paths name no file; the Hub's resolve requests do.
  SECTION("the single file's probe") {
    hub.add_fault({FaultKind::Status, "hub", "/model.safetensors", 500, -1, "", -1, {}});
    auto r = run_cli("HuggingFaceTB/SmolLM2-135M --retries 2", hub_env(hub, slow_dir("budget-single")));
    INFO(r.err);
    CHECK(r.code == 4);
    CHECK_THAT(r.err, Catch::Contains("answered 500") && Catch::Contains("after 3 attempt(s)"));
    CHECK(count_if(hub.requests(), [](const auto& x) { return x.path.ends_with("/model.safetensors"); }) == 3);
  }
  SECTION("one shard of sixteen") {
    hub.add_fault({FaultKind::Status, "hub", "model-00003-of-00016", 503, -1, "", -1, {}});
    auto r = run_cli("Qwen/Qwen3-30B-A3B --retries 2", hub_env(hub, slow_dir("budget-shard")));
    INFO(r.err);
    CHECK(r.code == 4);
    CHECK_THAT(r.err, Catch::Contains("model-00003-of-00016.safetensors"));
    CHECK(count_if(hub.requests(), [](const auto& x) { return x.path.find("model-00003-of-00016") != std::string::npos; }) ==
          3);
  }
}

TEST_CASE("a redirect whose body runs past 64 KiB is followed all the same", "[remote]") {
  TestHub hub(fixture_hub());
  hub.add_fault({FaultKind::LongRedirectBody, "hub", "", 200, -1, "", -1, {}});
  auto r = run_cli("HuggingFaceTB/SmolLM2-135M --json", hub_env(hub, slow_dir("long-redirect")));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(total_params(r.out) == 134'515'008ull);
}

TEST_CASE("a retry is said on stderr with -v, and quiet without a terminal", "[remote][slow]") {
  TestHub hub(fixture_hub());
  hub.add_fault({FaultKind::Status, "cdn", "", 503, 0, "", 1, {}});  // the first CDN read: 503, Retry-After: 0
  auto loud = run_cli("HuggingFaceTB/SmolLM2-135M -v", hub_env(hub, slow_dir("retry-loud")));
  INFO(loud.err);
  CHECK(loud.code == 0);
  CHECK_THAT(loud.err, Catch::Contains("retrying in ") && Catch::Contains("(attempt 2 of 6): 503 from the CDN"));
  hub.add_fault({FaultKind::Status, "cdn", "", 503, 0, "", 1, {}});
  auto quiet = run_cli("HuggingFaceTB/SmolLM2-135M", hub_env(hub, slow_dir("retry-quiet")));
  CHECK(quiet.code == 0);
  CHECK(quiet.err.empty());  // stderr is a file here: no terminal, no -v
}

TEST_CASE("HF_HUB_ETAG_TIMEOUT governs metadata requests, HF_HUB_DOWNLOAD_TIMEOUT the file reads", "[remote][slow]") {
  TestHub hub(fixture_hub());
  // The repository info answers after 3 s, once. Under a 1 s metadata timeout it is cut and asked
  // again (-v says so); under the default 10 s it is waited for.
  auto slow_info = [] {
    return hfi::testhub::FaultRule{FaultKind::SlowFirstByte, "hub", "/api/models/", 200, -1, "", 1, std::chrono::milliseconds(3000)};
  };
  hub.add_fault(slow_info());
  auto cut = run_cli("HuggingFaceTB/SmolLM2-135M -v", hub_env(hub, slow_dir("etag-cut"), "HF_HUB_ETAG_TIMEOUT=1"));
  INFO(cut.err);
  CHECK(cut.code == 0);
  CHECK_THAT(cut.err, Catch::Contains("retrying in ") && Catch::Contains("timed out") && Catch::Contains("for 1 s"));
  hub.add_fault(slow_info());
  auto waited = run_cli("HuggingFaceTB/SmolLM2-135M -v", hub_env(hub, slow_dir("etag-default"), "HF_HUB_DOWNLOAD_TIMEOUT=1"));
  INFO(waited.err);
  CHECK(waited.code == 0);  // the download timeout does not touch the metadata requests
  CHECK_THAT(waited.err, !Catch::Contains("retrying"));
}
