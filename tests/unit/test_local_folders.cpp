// Folders as users hand them over: a Hugging Face cache snapshot (every file a symlink into
// blobs/), a folder with a symlink loop, a symlink that leads elsewhere, a tree too large to be a
// model. Each must give the published figures or a clear refusal, never "no weights".
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "pipeline/analyse.hpp"
#include "source/local_source.hpp"
#include "support/fixture_repo.hpp"

namespace fs = std::filesystem;

namespace {

fs::path local_dir(const std::string& name) { return hfi::testing::fresh_work_dir("local-folders/" + name); }

hfi::Result<hfi::Report> inspect_folder(const fs::path& dir) {
  hfi::LocalSource source(dir);
  auto snap = hfi::load_snapshot(source);
  if (!snap) return snap.error();
  return hfi::build_report(std::move(*snap), {});
}

bool any_note_mentions(const hfi::Report& r, const std::string& text) {
  for (const auto& n : r.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

// Meta's Llama-3.1-8B, as the Hub publishes it: 8,030,261,248 parameters in 4 shards.
constexpr uint64_t kLlamaParams = 8'030'261'248;

}  // namespace

TEST_CASE("local folder: a cache snapshot reads by its file names, not its blobs'", "[local]") {
  // huggingface_hub's layout: models--org--name/blobs/<etag> holds the bytes, and
  // snapshots/<commit>/<file> is a relative symlink to ../../blobs/<etag>.
  fs::path repo = local_dir("cache") / "models--meta-llama--Llama-3.1-8B";
  fs::path flat = local_dir("cache-flat");
  hfi::testing::materialize_fixture(hfi::testing::fixtures_dir() / "meta-llama/Llama-3.1-8B", flat);
  fs::path snapshot = repo / "snapshots" / "d04e592bb4f6aa9cfee91e2e20afa771667e1d4b";
  fs::create_directories(repo / "blobs");
  fs::create_directories(snapshot);
  int blob = 0;
  for (const auto& entry : fs::directory_iterator(flat)) {
    std::string etag = "blob" + std::to_string(++blob);
    fs::rename(entry.path(), repo / "blobs" / etag);
    fs::create_symlink(fs::path("../../blobs") / etag, snapshot / entry.path().filename());
  }

  auto r = inspect_folder(snapshot);
  REQUIRE(r);
  CHECK(r->shard_count == 4);
  CHECK(r->params.total == kLlamaParams);
  CHECK(r->storage.stored_bytes > 0);
  CHECK_FALSE(any_note_mentions(*r, "subfolder"));
  CHECK_FALSE(any_note_mentions(*r, "blobs"));
}

TEST_CASE("local folder: a directory symlink is not entered, so nothing counts twice", "[local]") {
  fs::path dir = local_dir("loop");
  hfi::testing::materialize_fixture(hfi::testing::fixtures_dir() / "meta-llama/Llama-3.1-8B", dir);
  fs::create_directory_symlink(".", dir / "loop");
  fs::create_directory_symlink(".", dir / "shards");
  auto listing = hfi::LocalSource(dir).list_files();
  REQUIRE(listing);
  for (const auto& f : *listing) CHECK(f.path.find('/') == std::string::npos);
  auto r = inspect_folder(dir);
  REQUIRE(r);
  CHECK(r->shard_count == 4);
  CHECK(r->params.total == kLlamaParams);
}

TEST_CASE("local folder: a symlink that leads outside the folder is refused, by name", "[local]") {
  fs::path elsewhere = local_dir("elsewhere");
  {
    std::ofstream(elsewhere / "config.json") << R"({"model_type": "llama"})";
  }
  fs::path dir = local_dir("escape");
  fs::create_symlink(elsewhere / "config.json", dir / "config.json");
  auto r = inspect_folder(dir);
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == hfi::ErrorKind::Usage);
  CHECK_THAT(r.error().describe(), Catch::Contains("config.json") && Catch::Contains("outside the folder"));
}

TEST_CASE("local folder: a tree far larger than any repository is refused, not cut short", "[local]") {
  // Past its limit (100,000 entries by default; 500 here, so that the test makes 606 files, not
  // 100,000) the listing used to stop without a word, whichever files it had not reached yet: a
  // root shard listed after a large subfolder went missing.
  fs::path dir = local_dir("huge");
  for (int d = 0; d < 6; ++d) {
    fs::path sub = dir / ("d" + std::to_string(d));
    fs::create_directory(sub);
    for (int f = 0; f < 100; ++f) std::ofstream(sub / std::to_string(f));
  }
  hfi::ListingLimits limits;
  limits.max_entries = 500;
  auto listing = hfi::LocalSource(dir, hfi::SourceKind::Local, {}, limits).list_files();
  REQUIRE_FALSE(listing);
  CHECK(listing.error().kind == hfi::ErrorKind::Usage);
  CHECK_THAT(listing.error().describe(), Catch::Contains("more than 500"));
  limits.max_entries = 1000;
  CHECK(hfi::LocalSource(dir, hfi::SourceKind::Local, {}, limits).list_files());
}

TEST_CASE("unknown fields: keys every PretrainedConfig carries count only away from their defaults", "[local]") {
  // transformers 4.x saved its generation defaults and bookkeeping into config.json: at those
  // values they say nothing about the model; num_beams 4 does.
  fs::path dir = local_dir("defaults");
  std::ifstream in(hfi::testing::fixtures_dir() / "meta-llama/Llama-3.1-8B/config.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string extra = R"("max_length": 20, "num_beams": 4, "temperature": 1.0, "top_k": 50, "return_dict": true,
    "chunk_size_feed_forward": 0, "id2label": {"0": "LABEL_0", "1": "LABEL_1"}, "output_hidden_states": false, )";
  text.insert(text.find('{') + 1, extra);
  std::ofstream(dir / "config.json") << text;
  auto r = inspect_folder(dir);
  REQUIRE(r);
  REQUIRE(r->unknown_fields.size() == 1);
  CHECK(r->unknown_fields[0].name == "num_beams");
}

TEST_CASE("local folder: a second copy of a shard, without an index, is not counted twice", "[local]") {
  fs::path dir = local_dir("copy");
  hfi::testing::materialize_fixture(hfi::testing::fixtures_dir() / "HuggingFaceTB/SmolLM2-135M", dir);
  fs::copy_file(dir / "model.safetensors", dir / "model (1).safetensors");
  auto r = inspect_folder(dir);
  REQUIRE(r);
  CHECK(r->shard_count == 1);
  CHECK(r->params.total == 134'515'008);  // the Hub's count for SmolLM2-135M
  CHECK(any_note_mentions(*r, "a copy, left out of the counts"));
}
