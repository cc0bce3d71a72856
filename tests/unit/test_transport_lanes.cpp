// The curl transport spreads a large plain-HTTP batch over several threads (lanes): the caller
// still sees one batch, in order, with one completion reported at a time and the whole batch's
// progress. Against the loopback test hub.
#include <catch2/catch.hpp>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "http/http.hpp"
#include "hub/test_hub.hpp"
#include "support/fixture_repo.hpp"

using hfi::testhub::TestHub;

TEST_CASE("transport: a large plain-HTTP batch runs in lanes and still reads as one batch", "[remote]") {
  hfi::testhub::Options options;
  options.fixtures = hfi::testing::fixtures_dir();
  TestHub hub(options);
  std::vector<size_t> progress_done;
  std::set<size_t> progress_totals;
  hfi::http::ClientOptions client;
  client.progress = [&](const hfi::http::Progress& p) {
    progress_done.push_back(p.done);
    progress_totals.insert(p.total);
  };
  auto transport = hfi::http::make_curl_transport(client);

  // 100 reads of 8 bytes, each at its own offset of one shard: request i asks bytes [8i, 8i + 8).
  const size_t n = 100;
  std::vector<hfi::http::Request> requests(n);
  for (size_t i = 0; i < n; ++i) {
    requests[i].url = hub.endpoint() + "/meta-llama/Llama-3.1-8B/resolve/main/model-00001-of-00004.safetensors";
    requests[i].range_offset = 8 * i;
    requests[i].range_length = 8;
  }
  std::atomic<int> inside{0};
  bool overlapped = false;
  std::vector<size_t> reported;
  std::set<std::thread::id> threads;
  auto out = transport->perform(requests, "lanes", [&](size_t i, hfi::http::Response& r) {
    overlapped = overlapped || inside.fetch_add(1) != 0;
    reported.push_back(i);
    threads.insert(std::this_thread::get_id());
    CHECK(r.status == 206);
    inside.fetch_sub(1);
  });

  REQUIRE(out.size() == n);
  for (size_t i = 0; i < n; ++i) {
    CHECK(out[i].status == 206);
    CHECK(out[i].body.size() == 8);
    CHECK(out[i].headers["content-range"].rfind("bytes " + std::to_string(8 * i) + "-" + std::to_string(8 * i + 7) + "/", 0) == 0);
  }
  CHECK_FALSE(overlapped);
  CHECK(std::set<size_t>(reported.begin(), reported.end()).size() == n);
  CHECK(reported.size() == n);
  std::vector<size_t> counting(n);
  for (size_t i = 0; i < n; ++i) counting[i] = i + 1;
  CHECK(progress_done == counting);
  CHECK(progress_totals == std::set<size_t>{n});
  if (std::thread::hardware_concurrency() >= 2) CHECK(threads.size() >= 2);  // it did spread
  CHECK(transport->requests_sent() == 2 * n);  // the Hub's 302 and the CDN's 206, each counted once
}
