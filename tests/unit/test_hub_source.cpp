// HubSource at the library level, against the loopback test hub: the shard header reads it sends
// ahead reach the caller one by one as they arrive, on the caller's thread.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "http/http.hpp"
#include "hub/test_hub.hpp"
#include "source/hub_source.hpp"
#include "support/fixture_repo.hpp"

using hfi::testhub::FaultKind;
using hfi::testhub::TestHub;
using Clock = std::chrono::steady_clock;

namespace {

// The little-endian u64 that opens a safetensors file.
uint64_t length_prefix(const std::string& bytes) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes.at(static_cast<size_t>(i)));
  return n;
}

}  // namespace

TEST_CASE("hub source: headers read ahead reach the caller as they arrive, before the read returns", "[remote]") {
  hfi::testhub::Options options;
  options.fixtures = hfi::testing::fixtures_dir();
  TestHub hub(options);
  // One shard's redirect comes 800 ms late: the other three must be handed over long before it.
  const std::string slow = "model-00004-of-00004.safetensors";
  hub.add_fault({FaultKind::SlowFirstByte, "hub", slow, 200, -1, "", 1, std::chrono::milliseconds(800)});
  auto transport = hfi::http::make_curl_transport({});
  hfi::HubSettings settings;
  settings.endpoint = hub.endpoint();
  hfi::HubSource source({"meta-llama/Llama-3.1-8B", "main"}, settings, *transport, nullptr, 100'008);
  REQUIRE(source.open());
  auto files = source.list_files();
  REQUIRE(files);
  std::vector<hfi::RangeRequest> requests;
  for (const auto& f : *files)
    if (f.path.ends_with(".safetensors")) requests.push_back({f.path, 0, std::min<uint64_t>(100'008, f.size), true});
  REQUIRE(requests.size() == 4);
  REQUIRE(requests.back().path == slow);
  requests.push_back({requests[0].path, 8, 16, false});  // not a read-ahead: fetched afterwards

  struct Seen {
    size_t index;
    std::thread::id thread;
    Clock::time_point at;
    std::string bytes;
  };
  std::vector<Seen> seen;
  std::mutex seen_mutex;  // the calls may come from this thread and one helper at once
  auto out = source.read_ranges_as_they_arrive(requests, [&](size_t i, std::string& bytes) {
    Seen s{i, std::this_thread::get_id(), Clock::now(), {}};
    if (i % 2 == 0) s.bytes = std::move(bytes);  // take every other one; the rest stay in the result
    else s.bytes = bytes;
    std::lock_guard<std::mutex> lock(seen_mutex);
    seen.push_back(std::move(s));
  });
  REQUIRE(out.size() == 5);

  // Each shard once, the slow one last and long after the others, on this thread or one other.
  REQUIRE(seen.size() == 4);
  std::set<size_t> indices;
  std::set<std::thread::id> threads;
  for (const auto& s : seen) {
    indices.insert(s.index);
    threads.insert(s.thread);
  }
  CHECK(indices == std::set<size_t>{0, 1, 2, 3});
  CHECK(threads.size() <= 2);
  CHECK(seen.back().index == 3);
  for (size_t k = 0; k + 1 < seen.size(); ++k) CHECK(seen.back().at - seen[k].at > std::chrono::milliseconds(400));

  // What the caller took is gone from the result; what it left is there. Either way the bytes
  // are the whole header and no more: its 8-byte length, then exactly that many bytes.
  for (const auto& s : seen) {
    REQUIRE(out[s.index]);
    CHECK(out[s.index]->empty() == (s.index % 2 == 0));
    if (s.index % 2 == 1) CHECK(*out[s.index] == s.bytes);
    REQUIRE(s.bytes.size() > 8);
    CHECK(s.bytes.size() == 8 + length_prefix(s.bytes));
  }
  REQUIRE(out[4]);
  auto first_shard = std::find_if(seen.begin(), seen.end(), [](const Seen& s) { return s.index == 0; });
  CHECK(*out[4] == first_shard->bytes.substr(8, 16));

  // One CDN read per shard for the read-ahead, and one more for the later range.
  size_t cdn = 0;
  for (const auto& r : hub.requests()) cdn += r.origin == "cdn";
  CHECK(cdn == 5);
}
