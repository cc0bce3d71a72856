// HubSource at the library level, against the loopback test hub: the fetch plan's shard header
// reads leave as soon as the repository info answers, and serve the loader's reads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "http/http.hpp"
#include "hub/test_hub.hpp"
#include "source/hub_source.hpp"
#include "support/fixture_repo.hpp"
#include "support/run_cli.hpp"

using hfi::testhub::FaultKind;
using hfi::testhub::TestHub;
using Clock = std::chrono::steady_clock;

TEST_CASE("hub source: the shard header reads leave when the repository info answers, not after the round", "[remote]") {
  hfi::testhub::Options options;
  options.fixtures = hfi::testing::fixtures_dir();
  TestHub hub(options);
  // config.json answers 800 ms late: the four shard reads must reach the CDN long before it does,
  // in the same transport run as round one.
  hub.add_fault({FaultKind::SlowFirstByte, "hub", "config.json", 200, -1, "", 1, std::chrono::milliseconds(800)});
  auto transport = hfi::http::make_curl_transport({});
  hfi::HubSettings settings;
  settings.endpoint = hub.endpoint();
  hfi::HubSource source({"meta-llama/Llama-3.1-8B", "main"}, settings, *transport, nullptr, 100'008);
  REQUIRE(source.open());
  const size_t after_open = transport->requests_sent();
  auto log = hub.requests();
  uint64_t config_answered = 0;
  std::vector<uint64_t> cdn_received;
  for (const auto& r : log) {
    if (r.origin == "hub" && r.path.ends_with("/config.json")) config_answered = r.answered_us;
    if (r.origin == "cdn") cdn_received.push_back(r.received_us);
  }
  REQUIRE(config_answered > 0);
  REQUIRE(cdn_received.size() == 4);
  for (uint64_t at : cdn_received) CHECK(config_answered > at + 400'000);

  // Each header was parsed as it arrived: the loader takes the parsed headers without a request
  // more, each checked against the file size the listing gives.
  auto files = source.list_files();
  REQUIRE(files);
  size_t shards = 0;
  for (const auto& f : *files) {
    if (!f.path.ends_with(".safetensors")) continue;
    ++shards;
    auto parsed = source.take_parsed_header(f.path, f.size);
    REQUIRE(parsed);
    REQUIRE(*parsed);
    CHECK((*parsed)->file_size() == f.size);
    CHECK_FALSE(source.take_parsed_header(f.path, f.size));  // handed over once
  }
  CHECK(shards == 4);
  CHECK(transport->requests_sent() == after_open);
  // Any other range of a shard goes to the network: to the CDN address its header read came from.
  const std::string shard = "model-00001-of-00004.safetensors";
  const std::string expected = hfi::testing::padded_safetensors_prefix(
      hfi::testing::slurp(hfi::testing::fixtures_dir() / "meta-llama/Llama-3.1-8B" / (shard + ".header.json")));
  auto again = source.read_ranges({{shard, 8, 16, false}});
  REQUIRE(again[0]);
  CHECK(*again[0] == expected.substr(8, 16));
  size_t cdn = 0;
  for (const auto& r : hub.requests()) cdn += r.origin == "cdn";
  CHECK(cdn == 5);
}

TEST_CASE("hub source: the rest of a long header goes to the CDN address, and back to the Hub if refused", "[remote]") {
  hfi::testhub::Options options;
  options.fixtures = hfi::testing::fixtures_dir();
  TestHub hub(options);
  auto transport = hfi::http::make_curl_transport({});
  hfi::HubSettings settings;
  settings.endpoint = hub.endpoint();
  // One file, model.safetensors, with a 263,951-byte header, read in three pieces: the first is
  // served from what open() read ahead, the other two are not.
  hfi::HubSource source({"google/gemma-4-E2B-it", "main"}, settings, *transport, nullptr, 100'008);
  REQUIRE(source.open());
  const std::string header = hfi::testing::slurp(hfi::testing::fixtures_dir() / "google/gemma-4-E2B-it/model.safetensors.header.json");
  const std::string expected = hfi::testing::padded_safetensors_prefix(header);
  REQUIRE(expected.size() > 200'008);
  auto first = source.read_ranges({{"model.safetensors", 0, 100'008, false}});
  REQUIRE(first[0]);
  CHECK(*first[0] == expected.substr(0, 100'008));
  const size_t hub_reads = hub.requests().size();

  auto count = [&](const std::string& origin) {
    size_t n = 0;
    auto log = hub.requests();
    for (size_t i = hub_reads; i < log.size(); ++i) n += log[i].origin == origin;
    return n;
  };
  // The next 100,000 bytes: one request, to the CDN, none to the Hub.
  auto second = source.read_ranges({{"model.safetensors", 100'008, 100'000, false}});
  REQUIRE(second[0]);
  CHECK(*second[0] == expected.substr(100'008, 100'000));
  CHECK(count("cdn") == 1);
  CHECK(count("hub") == 0);

  // The CDN now refuses that address (an expired signature): the read goes through the Hub's
  // redirect instead, and still brings the right bytes.
  hub.add_fault({FaultKind::Status, "cdn", "", 403, -1, "", 1, {}});
  auto third = source.read_ranges({{"model.safetensors", 200'008, expected.size() - 200'008, false}});
  REQUIRE(third[0]);
  CHECK(*third[0] == expected.substr(200'008));
  CHECK(count("cdn") == 3);  // the earlier one, the refusal, the read after the redirect
  CHECK(count("hub") == 1);
}

TEST_CASE("hub source: the read-ahead's size follows the index's bytes per shard") {
  // 1.8 times the index's bytes per shard, plus the 8-byte length, never below the default.
  // DeepSeek-V3: 8,990,315 / 163 = 55,155 per shard; 1.8 x that is 99,279 + 8, under 100,008.
  CHECK(hfi::early_probe_bytes(100'008, 8'990'315, 163) == 100'008);
  // Qwen3-30B-A3B: 1,699,758 / 16 = 106,234 per shard; 106,234 / 5 x 9 = 191,214, + 8. Its
  // longest header, 156,198 bytes, ends at 156,208.
  CHECK(hfi::early_probe_bytes(100'008, 1'699'758, 16) == 191'222);
  // No shard, or an index that would ask for more than 8 MiB per shard.
  CHECK(hfi::early_probe_bytes(100'008, 1'699'758, 0) == 100'008);
  CHECK(hfi::early_probe_bytes(100'008, uint64_t{64} << 20, 2) == uint64_t{8} << 20);
  // A listing's sizes are the server's word: 10,248,191,152,060,862,010 / 5 x 9 is 2^64 + 2, and
  // must not wrap around to a small read.
  CHECK(hfi::early_probe_bytes(100'008, 10'248'191'152'060'862'010ull, 1) == uint64_t{8} << 20);
}

TEST_CASE("hub source: a repository info cut at its 64 MiB limit is called too large, not invalid") {
  // What the transport hands back for a body past Request::max_body: the first 64 MiB, flagged.
  hfi::http::Response cut;
  cut.status = 200;
  cut.url = "http://127.0.0.1:1/api/models/org/name/revision/main?blobs=true";
  cut.too_large = true;
  cut.body = R"({"siblings":[{"rfilename":"a)";
  hfi::HubSettings settings;
  auto info = hfi::read_repo_info(cut, {"org/name", "main"}, settings);
  REQUIRE_FALSE(info);
  CHECK(info.error().kind == hfi::ErrorKind::Malformed);
  CHECK_THAT(info.error().message, Catch::Contains("larger than 64 MiB"));
  CHECK_THAT(info.error().message, !Catch::Contains("not valid JSON"));
}
