// Pipelines: diffusers' model_index.json and sentence-transformers' modules.json, each component
// read from its folder, against the counts published for each (fixtures' PROVENANCE.md).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "formats/pipeline_layout.hpp"
#include "hub/test_hub.hpp"
#include "support/fixture_repo.hpp"
#include "support/hub_runs.hpp"
#include "support/inspect.hpp"
#include "support/run_cli.hpp"

namespace fs = std::filesystem;

namespace {

const hfi::ComponentReport& component(const hfi::Report& r, const std::string& name) {
  REQUIRE(r.pipeline);
  for (const auto& c : r.pipeline->components)
    if (c.ref.name == name) return c;
  FAIL("no component " << name);
  throw;
}

uint64_t by_dtype(const hfi::Report& r, const std::string& dtype) {
  for (const auto& [name, n] : r.params.by_dtype)
    if (name == dtype) return n;
  return 0;
}

}  // namespace

TEST_CASE("model_index.json and modules.json: components, folders, and the hostile ones", "[pipeline]") {
  auto sd = hfi::parse_model_index(R"({"_class_name":"StableDiffusionPipeline","_diffusers_version":"0.2.2","requires_safety_checker":true,
      "unet":["diffusers","UNet2DConditionModel"],"safety_checker":[null,null]})", "model_index.json");
  REQUIRE(sd.ok());
  CHECK(sd->class_name == "StableDiffusionPipeline");
  REQUIRE(sd->components.size() == 2);  // requires_safety_checker is a flag, not a component
  CHECK(sd->components[0].path == "unet");
  CHECK(sd->components[1].class_name.empty());  // switched off
  auto st = hfi::parse_modules_json(R"([{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},
      {"idx":1,"name":"1","path":"1_Pooling","type":"sentence_transformers.models.Pooling"}])", "modules.json");
  REQUIRE(st.ok());
  CHECK(st->components[0].path.empty());
  CHECK(st->components[1].class_name == "Pooling");
  CHECK(st->components[1].library == "sentence_transformers");
  CHECK(hfi::parse_model_index(R"({"../up":["diffusers","X"]})", "model_index.json").error().field == "../up");
  CHECK(hfi::parse_model_index(R"({"vae":["diffusers"]})", "model_index.json").error().field == "vae");
  CHECK(hfi::parse_modules_json(R"([{"path":"/etc","type":"x.Dense"}])", "modules.json").error().field == "[0].path");
  CHECK(hfi::parse_modules_json(R"([{"path":"a/../../b","type":"x.Dense"}])", "modules.json").error().field == "[0].path");
  CHECK(hfi::parse_modules_json(R"([{"path":"","type":7}])", "modules.json").error().field == "[0].type");
}

TEST_CASE("CompVis/stable-diffusion-v1-4: each component's published count, and their sum", "[pipeline]") {
  auto [snap, r] = hfi::testing::inspect_fixture("CompVis/stable-diffusion-v1-4");
  REQUIRE(r.pipeline);
  CHECK(r.pipeline->kind == hfi::PipelineKind::Diffusers);
  CHECK(r.pipeline->class_name == "StableDiffusionPipeline");
  // huggingface.js's parseSafetensorsMetadata test: the unet holds 859,520,964 F32 parameters.
  const auto& unet = component(r, "unet");
  REQUIRE(unet.report);
  CHECK(unet.report->params.total == 859'520'964ull);
  CHECK(by_dtype(*unet.report, "F32") == 859'520'964ull);
  const auto& vae = component(r, "vae");
  REQUIRE(vae.report);
  CHECK(vae.report->params.total == 83'653'863ull);
  // CLIP ViT-L/14's text model, 123,060,480 parameters, and the 77 position ids the old
  // checkpoint stores (I64), which the Hub counts too.
  const auto& text = component(r, "text_encoder");
  REQUIRE(text.report);
  CHECK(by_dtype(*text.report, "F32") == 123'060'480ull);
  CHECK(by_dtype(*text.report, "I64") == 77);
  CHECK_FALSE(component(r, "scheduler").report);
  CHECK_FALSE(component(r, "tokenizer").report);
  // The fixture holds the safety checker's config alone, so its count comes from the formula:
  // diffusers' StableDiffusionSafetyChecker keeps CLIP ViT-L/14's vision side only. By hand:
  // class 1,024 + patches 1,024·3·14² = 602,112 + positions 257·1,024 = 263,168 + two LayerNorms
  // 4,096 + 24 layers × (4 × 1,049,600 attention + 4,198,400 fc1 + 4,195,328 fc2 + 4,096 norms)
  // = 303,179,776, then the projection 768·1,024 = 786,432 and the concepts 17·768 + 3·768 + 17 + 3
  // = 15,380: 303,981,588. Its text tower (123 M) is not in it.
  const auto& checker = component(r, "safety_checker");
  REQUIRE(checker.report);
  CHECK(checker.report->params.total == 303'981'588ull);
  CHECK(r.params.total == 859'520'964ull + 83'653'863ull + 123'060'480ull + 77 + 303'981'588ull);
  CHECK(r.memory.weight_bytes == unet.report->memory.weight_bytes + vae.report->memory.weight_bytes +
                                     text.report->memory.weight_bytes + checker.report->memory.weight_bytes);
  CHECK(checker.report->memory.weight_bytes == 303'981'588ull * 4);  // float32, as its config says
  CHECK(r.shard_count == 3);
}

TEST_CASE("sentence-transformers: the transformer at the root, Pooling and Dense in their folders", "[pipeline]") {
  SECTION("all-MiniLM-L6-v2: the Hub's 22,713,728, reconciled by the bert spec") {
    auto [snap, r] = hfi::testing::inspect_fixture("sentence-transformers/all-MiniLM-L6-v2");
    REQUIRE(r.pipeline);
    CHECK(r.pipeline->kind == hfi::PipelineKind::SentenceTransformers);
    const auto& transformer = component(r, "0");
    REQUIRE(transformer.report);
    CHECK(transformer.report->model_type == "bert");
    CHECK(transformer.report->reconcile.unexplained_tensors == 0);
    CHECK(transformer.report->reconcile.missing.empty());
    CHECK_FALSE(component(r, "1").report);  // Pooling: a config, no weights
    CHECK(r.params.total == 22'713'728ull);
  }
  SECTION("LaBSE: a 768 -> 768 Dense module adds 768 x 768 + 768 parameters") {
    auto [snap, r] = hfi::testing::inspect_fixture("sentence-transformers/LaBSE");
    const auto& dense = component(r, "2");
    REQUIRE(dense.report);
    CHECK(dense.report->params.total == 768ull * 768 + 768);
    const auto& transformer = component(r, "0");
    REQUIRE(transformer.report);
    CHECK(r.params.total == transformer.report->params.total + 768ull * 768 + 768);
  }
}

TEST_CASE("a pipeline through the hub: every component file read once, in one round", "[pipeline][remote]") {
  hfi::testhub::TestHub hub(hfi::testing::fixture_hub());
  const std::string repo = "CompVis/stable-diffusion-v1-4";
  const auto cache = hfi::testing::fresh_work_dir("pipeline/remote-cache");
  auto cold = hfi::testing::run_cli(repo + " --json", hfi::testing::hub_env(hub, cache));
  INFO(cold.err);
  REQUIRE(cold.code == 0);
  CHECK(hfi::testing::total_params(cold.out) == 859'520'964ull + 83'653'863ull + 123'060'480ull + 77 + 303'981'588ull);  // the safety checker from its config, as above
  const auto log = hub.requests();
  for (const char* file : {"unet/config.json", "vae/config.json", "text_encoder/config.json", "safety_checker/config.json"}) {
    INFO(file);
    // One answer per file (a redirect on the way is a hop of the same request).
    CHECK(hfi::testing::count_if(log, [&](const auto& r) { return r.path.ends_with(std::string("/") + file) && (r.status < 300 || r.status >= 400); }) == 1);
  }
  // The three weight files: one header read each, through the Hub's 302 to the CDN.
  for (const char* file : {"unet/diffusion_pytorch_model.safetensors", "vae/diffusion_pytorch_model.safetensors", "text_encoder/model.safetensors"}) {
    INFO(file);
    CHECK(hfi::testing::count_if(log, [&](const auto& r) { return r.origin == "hub" && r.path.ends_with(std::string("/") + file); }) == 1);
  }
  CHECK(hfi::testing::count_if(log, [](const auto& r) { return r.origin == "cdn"; }) == 3);
  auto doc = hfi::testing::parse_stdout(cold.out);
  CHECK(doc.find("pipeline")->find("class")->as_string() == "StableDiffusionPipeline");
  const auto& components = doc.find("components")->items();
  CHECK(components.size() == 7);
  hub.clear_requests();
  auto offline = hfi::testing::run_cli(repo + " --offline --json", hfi::testing::hub_env(hub, cache));
  INFO(offline.err);
  REQUIRE(offline.code == 0);
  CHECK(hub.requests().empty());
  CHECK(hfi::testing::total_params(offline.out) == hfi::testing::total_params(cold.out));
}

TEST_CASE("a model_index.json that points outside the repository exits 5 naming the key", "[pipeline]") {
  const auto dir = hfi::testing::fresh_work_dir("pipeline/hostile");
  std::ofstream(dir / "model_index.json") << R"({"_class_name":"X","../../etc":["diffusers","UNet2DConditionModel"]})";
  auto run = hfi::testing::run_cli(dir.string());
  CHECK(run.code == 5);
  CHECK(run.err.find("../../etc") != std::string::npos);
}
