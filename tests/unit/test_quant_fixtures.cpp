// Quantized fixtures (fixtures/quantized/, issue 5), data-driven like the fixture catalog:
// - every fixtures/quantized/**/published.json: the logical parameter count equals the unquantized
//   model's published count (packed codes counted as the values they hold, scales and zeros not at
//   all), and the decoded modules add up to the "quant" figures derived by hand from the format
//   reference (fixtures/tools/quant_fixtures.py, each folder's PROVENANCE.md), never from hfinspect;
//   where a real checkpoint of the layout published its byte total ("index_total_size"), the
//   headers' tensor bytes equal it;
// - every expected_findings.json (fixtures/quantized/broken/): the real CLI's `check --fail-on quant`
//   exits 1 and reports each listed finding key; the intact fixtures pass the same check.
//
//  until the quantization decoder and audit land (the lead drops the tag at merge).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/json.hpp"
#include "support/inspect.hpp"
#include "support/run_cli.hpp"

namespace {

namespace fs = std::filesystem;

uint64_t uint_at(const hfi::Json& j, const char* key) {
  const hfi::Json* v = j.find(key);
  REQUIRE(v);
  REQUIRE(v->as_uint());
  return *v->as_uint();
}

// Fixture folders (relative to fixtures/) under quantized/ that hold `file`.
std::vector<std::string> quantized_with(const std::string& file) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(hfi::testing::fixtures_dir() / "quantized"))
    if (e.is_regular_file() && e.path().filename() == file)
      out.push_back(fs::relative(e.path().parent_path(), hfi::testing::fixtures_dir()).generic_string());
  std::sort(out.begin(), out.end());
  return out;
}

hfi::Json read_json(const fs::path& p) {
  auto j = hfi::parse_json(hfi::testing::slurp(p), p.string());
  REQUIRE(j.ok());
  return std::move(j.value());
}

}  // namespace

TEST_CASE("quantized fixtures: logical parameters and quant figures match their published.json", "[quant]") {
  auto repos = quantized_with("published.json");
  REQUIRE(repos.size() >= 10);
  for (const auto& repo : repos) {
    INFO(repo);
    fs::path dir = hfi::testing::fixtures_dir() / repo;
    hfi::Json pub = read_json(dir / "published.json");
    auto inspected = hfi::testing::inspect_fixture(repo);
    const hfi::Report& r = inspected.report;
    CHECK(r.params.total == uint_at(pub, "params_total"));
    CHECK(r.reconcile.unexplained.empty());
    CHECK(r.reconcile.missing.empty());
    CHECK(r.reconcile.shape_mismatches.empty());
    // Real repos' published byte figures: the safetensors files' sizes (a Git LFS pointer's `size`),
    // compared with the materialized files (8-byte length + padded header + data, each); an index's
    // total_size, compared with the tensor data of the headers.
    if (const hfi::Json* fb = pub.find("file_bytes")) {
      uint64_t files = 0;
      for (const auto& e : fs::directory_iterator(hfi::testing::materialized(repo)))
        if (e.is_regular_file() && e.path().extension() == ".safetensors") files += fs::file_size(e.path());
      REQUIRE(fb->as_uint());
      CHECK(files == *fb->as_uint());
    }
    if (const hfi::Json* ts = pub.find("index_total_size")) {
      REQUIRE(ts->as_uint());
      CHECK(r.index_total_size == *ts->as_uint());
      // A real index whose total_size leaves out shards its weight_map lists (kvcache-ai's DeepSeek-V3
      // AWQ: the MTP layer's mtp_float-*.safetensors were appended to the weight_map, total_size kept):
      // the other shards' tensor bytes equal total_size, the named ones add index_excluded_bytes.
      std::vector<std::string> excluded;
      if (const hfi::Json* ex = pub.find("index_total_size_excludes_shards"))
        for (const auto& item : ex->items()) excluded.push_back(item.as_string());
      uint64_t counted = 0, left_out = 0;
      for (const auto& s : inspected.snapshot.shards) {
        std::string file = fs::path(s.path).filename().string();
        bool out = std::find(excluded.begin(), excluded.end(), file) != excluded.end();
        for (const auto& t : s.header.tensors) (out ? left_out : counted) += t.bytes();
      }
      CHECK(counted == *ts->as_uint());
      CHECK(left_out == (excluded.empty() ? 0 : uint_at(pub, "index_excluded_bytes")));
      CHECK(r.storage.stored_bytes == counted + left_out);
    }

    const hfi::Json* q = pub.find("quant");
    REQUIRE(q);
    const auto& mods = r.storage.quant_modules;
    uint64_t value = 0, book = 0, bits = uint_at(*q, "bits");
    std::vector<std::string> incomplete, with_problems, other_bits;  // first few modules of each, for the message
    for (const auto& m : mods) {
      value += m.value_bytes;
      book += m.bookkeeping_bytes;
      if (!m.missing.empty()) incomplete.emplace_back(m.module);
      if (!m.problems.empty()) with_problems.push_back(std::string(m.module) + ": " + m.problems.front());
      if (m.bits && *m.bits != bits) other_bits.push_back(std::string(m.module) + ": " + std::to_string(*m.bits));
    }
    for (auto* list : {&incomplete, &with_problems, &other_bits}) list->resize(std::min<size_t>(list->size(), 3));
    CHECK(incomplete.empty());
    CHECK(with_problems.empty());
    CHECK(other_bits.empty());
    CHECK(mods.size() == uint_at(*q, "quantized_modules"));
    CHECK(value == uint_at(*q, "value_bytes"));
    CHECK(book == uint_at(*q, "bookkeeping_bytes"));
    uint64_t elements = 0;
    for (const auto& m : mods)
      if (m.logical < r.storage.logical.size()) elements += r.storage.logical[m.logical].params;
    CHECK(elements > 0);
    REQUIRE(q->find("bits_per_weight_quantized"));
    if (elements > 0) {
      double bpw = std::round(8000.0 * double(value + book) / double(elements)) / 1000.0;
      CHECK(bpw == Approx(q->find("bits_per_weight_quantized")->as_double().value_or(-1)).margin(1e-9));
    }
  }
}

TEST_CASE("quantized fixtures: intact checkpoints pass check --fail-on quant", "[quant]") {
  auto repos = quantized_with("published.json");
  REQUIRE(!repos.empty());
  for (const auto& repo : repos) {
    INFO(repo);
    auto r = hfi::testing::run_cli("check " + hfi::testing::materialized(repo).string() + " --fail-on quant --format json");
    INFO(r.out << r.err);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\"new_findings\": 0"));
  }
}

TEST_CASE("quantized fixtures: each broken variant fails check --fail-on quant with its findings", "[quant]") {
  auto repos = quantized_with("expected_findings.json");
  REQUIRE(repos.size() >= 7);
  for (const auto& repo : repos) {
    INFO(repo);
    hfi::Json expected = read_json(hfi::testing::fixtures_dir() / repo / "expected_findings.json");
    REQUIRE(expected.find("fail_on"));
    std::string fail_on = expected.find("fail_on")->as_string();
    auto r = hfi::testing::run_cli("check " + hfi::testing::materialized(repo).string() + " --fail-on " + fail_on +
                                   " --format json");
    INFO(r.out << r.err);
    CHECK(r.code == 1);
    const hfi::Json* findings = expected.find("findings");
    REQUIRE(findings);
    REQUIRE(!findings->items().empty());
    for (const auto& item : findings->items()) {
      const std::string& key = item.as_string();
      INFO(key);
      CHECK_THAT(r.out, Catch::Contains("\"key\": \"" + key + "\""));
    }
  }
}
