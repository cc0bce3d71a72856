// Loads a folder as a snapshot and builds its report, the way most unit tests start. Both steps
// must succeed: each is a REQUIRE, so a failure stops the test case where it happened.
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <utility>

#include "pipeline/analyse.hpp"
#include "source/local_source.hpp"
#include "support/fixture_repo.hpp"

namespace hfi::testing {

struct Inspected {
  hfi::Snapshot snapshot;
  hfi::Report report;
};

// The snapshot of `dir` and the report built from it with `options`.
inline Inspected inspect_dir(const std::filesystem::path& dir, const hfi::ReportOptions& options = {}) {
  hfi::LocalSource source(dir);
  auto snap = hfi::load_snapshot(source);
  REQUIRE(snap.ok());
  auto report = hfi::build_report(*snap, options);
  REQUIRE(report.ok());
  return {std::move(snap.value()), std::move(report.value())};
}

// The same for the materialized copy of fixtures/<repo>, reported under repo_id `repo`.
inline Inspected inspect_fixture(const std::string& repo, hfi::ReportOptions options = {}) {
  options.repo_id = repo;
  return inspect_dir(materialized(repo), options);
}

}  // namespace hfi::testing
