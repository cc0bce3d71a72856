// What the end-to-end tests against the loopback test hub share: a hub over the fixtures, a
// scrubbed environment that points hfinspect at it, and readers of what comes back.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "hub/test_hub.hpp"
#include "support/fixture_repo.hpp"

namespace hfi::testing {

inline testhub::Options fixture_hub() {
  testhub::Options o;
  o.fixtures = fixtures_dir();
  return o;
}

// A clean environment (env -i: no proxy, token or endpoint of the machine leaks in) that points
// hfinspect at `hub` and at its own cache.
inline std::string hub_env(const testhub::TestHub& hub, const std::filesystem::path& cache, const std::string& extra = "") {
  return "env -i PATH=/usr/bin:/bin HOME=" + (cache / "home").string() + " HF_ENDPOINT=" + hub.endpoint() +
         " HF_HUB_CACHE=" + cache.string() + " " + extra;
}

inline Json parse_stdout(const std::string& text) {
  auto doc = parse_json(text, "stdout");
  REQUIRE(doc);
  return std::move(doc.value());
}

// params.total of a JSON report.
inline uint64_t total_params(const std::string& json_text) {
  auto doc = parse_stdout(json_text);
  const Json* params = doc.find("params");
  REQUIRE(params);
  REQUIRE(params->find("total"));
  return params->find("total")->as_uint().value_or(0);
}

inline size_t count_if(const std::vector<testhub::RequestRecord>& log, const std::function<bool(const testhub::RequestRecord&)>& f) {
  return static_cast<size_t>(std::count_if(log.begin(), log.end(), f));
}

}  // namespace hfi::testing
