// Every figure here is published (../shared/hub/TRUTHS.md, model cards) or derived by hand in the
// comment beside it; none comes from running hfinspect.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/index_check.hpp"
#include "report/report.hpp"
#include "source/local_source.hpp"
#include "support/inspect.hpp"
#include "support/run_cli.hpp"

namespace {

hfi::Report inspect(const std::string& repo, uint64_t context = 8192) {
  hfi::ReportOptions options;
  options.context = context;
  return hfi::testing::inspect_fixture(repo, options).report;
}

}  // namespace

TEST_CASE("Llama-3.1-8B: Hub total, KV and FLOPs") {
  auto r = inspect("meta-llama/Llama-3.1-8B");
  CHECK(r.params.total == 8'030'261'248);  // HUB
  CHECK(r.reconcile.status == hfi::ReconcileStatus::Complete);
  // 2 (K,V) x 32 layers x 8 kv heads x 128 dims x 2 bytes
  CHECK(r.kv.bytes_per_token == 131'072);
  // fixed: 2 x (8,030,261,248 - 128,256 x 4,096 input embedding) = 15,009,849,344 ~ 15.01 G
  CHECK(r.flops.fixed == 15'009'849'344);
  // attention at 8192: 2 x 32 heads x (128 + 128) x 8192 x 32 layers = 4,294,967,296 ~ 4.29 G
  CHECK(r.flops.attention == 4'294'967'296);
  CHECK(r.params.embedding == 128'256ull * 4'096);
}

TEST_CASE("Llama-2-7b and SmolLM2-135M: loaded-model counts") {
  CHECK(inspect("meta-llama/Llama-2-7b-hf").params.total == 6'738'415'616);
  auto smol = inspect("HuggingFaceTB/SmolLM2-135M");
  CHECK(smol.params.total == 134'515'008);
  CHECK(smol.reconcile.status == hfi::ReconcileStatus::Complete);
  REQUIRE(smol.reconcile.absent_by_design.size() == 1);  // tied lm_head is not stored
  CHECK(smol.reconcile.absent_by_design[0] == "lm_head.weight");
}

TEST_CASE("Qwen3-30B-A3B: total and active") {
  auto r = inspect("Qwen/Qwen3-30B-A3B");
  CHECK(r.params.total == 30'532'122'624);  // HUB; INDEX 61,064,245,248 B / 2
  CHECK(r.params.active == 3'353'032'704);
  CHECK(r.reconcile.status == hfi::ReconcileStatus::Complete);
  CHECK(r.index_total_size == 61'064'245'248u);
  CHECK(r.storage.stored_bytes == 61'064'245'248u);
  CHECK(r.index_mismatches.empty());
}

TEST_CASE("DeepSeek-V3: main + MTP, active, MLA KV cache") {
  auto r = inspect("deepseek-ai/DeepSeek-V3");
  CHECK(r.params.total == 684'489'845'504);  // HUB = 671,026,419,200 + 13,463,426,304
  CHECK(r.params.mtp == 13'463'426'304);
  CHECK(r.params.total - r.params.mtp == 671'026'419'200);
  CHECK(r.params.active == 37'552'282'624);
  // (kv_lora_rank 512 + rope 64) x 61 layers x 2 bytes
  CHECK(r.kv.bytes_per_token == 70'272);
  CHECK(r.reconcile.status == hfi::ReconcileStatus::Complete);
  CHECK(r.shard_count == 163);
}

TEST_CASE("gpt-oss-20b: MXFP4 experts counted as logical weights") {
  auto r = inspect("openai/gpt-oss-20b");
  CHECK(r.params.total == 20'914'757'184);  // HUB
  CHECK(r.params.active_without_input_embedding == 3'608'307'264);
  CHECK(r.reconcile.status == hfi::ReconcileStatus::Complete);
  // 12 sliding layers capped at 128 tokens + 12 full layers: 2 x 8 x 64 x 2 bytes = 2,048 B per layer-token
  CHECK(r.kv.bytes_per_token == 24 * 2'048);
  CHECK(r.kv.windowed_layers == 12);
  auto at_8k = r.kv.bytes_at_context;
  CHECK(at_8k == 12ull * 2'048 * 8'192 + 12ull * 2'048 * 128);
}

TEST_CASE("Gemma 4 E2B: the gemma4 spec explains every tensor, the published total, parts by role") {
  auto r = inspect("google/gemma-4-E2B-it");
  REQUIRE(r.spec.has_value());
  CHECK(r.family == "gemma4");
  CHECK(r.params.total == 5'123'178'051);  // HUB
  CHECK(r.storage.file_bytes == 10'246'621'918u);  // published size of model.safetensors
  CHECK(r.reconcile.status == hfi::ReconcileStatus::Complete);
  CHECK(r.reconcile.matched_params == r.params.total);
  CHECK(r.reconcile.unexplained_params == 0);
  REQUIRE(r.reconcile.absent_by_design.size() == 1);  // tied lm_head
  CHECK(r.reconcile.absent_by_design[0] == "lm_head.weight");
  uint64_t sum = 0;
  auto role = [&](const std::string& name) {
    for (const auto& [k, v] : r.params.by_role)
      if (k == name) return v;
    return uint64_t{0};
  };
  for (const auto& [k, v] : r.params.by_role) sum += v;
  CHECK(sum == r.params.total);
  CHECK(role("unexplained") == 0);
  // 262,144 vocab x (35 layers x 256 per-layer width) = 2,348,810,240
  CHECK(role("per_layer_embedding") == 2'348'810'240u);
  CHECK(role("embedding") == 262'144ull * 1'536);
  // embed_vision 1,536 x 768 + embed_audio 1,536 x 1,536
  CHECK(role("projector") == 1'536ull * 768 + 1'536ull * 1'536);
  CHECK(role("vision") > 0);
  CHECK(role("audio") > 0);
  // KV sharing: layers 15-34 read layer 13 (last sliding) or 14 (last full) and cache nothing.
  REQUIRE(r.spec->attention.size() == 35);
  CHECK(r.spec->attention[15].kv_source_layer == 13);
  CHECK(r.spec->attention[34].kv_source_layer == 14);
  CHECK(r.spec->attention[14].kv_source_layer == -1);
  CHECK(r.kv.shared_kv_layers == 20);
  // 15 caching layers, 1 kv head: 12 sliding x (256 + 256) + 3 full x (512 + 512) elements, 2 bytes each
  CHECK(r.kv.bytes_per_token == (12u * 512 + 3u * 1'024) * 2);
  CHECK(r.kv.windowed_layers == 12);
  CHECK(r.unknown_fields.empty());
}

TEST_CASE("Gemma 3n E2B: AltUp, LAuReL, MobileNetV5 and the USM conformer reproduce the HUB total") {
  auto r = inspect("google/gemma-3n-E2B-it");
  REQUIRE(r.spec.has_value());
  CHECK(r.family == "gemma3n");
  CHECK(r.params.total == 5'439'438'272);  // HUB
  CHECK(r.reconcile.status == hfi::ReconcileStatus::Complete);
  CHECK(r.reconcile.unexplained_params == 0);
  REQUIRE(r.reconcile.absent_by_design.size() == 1);  // tied lm_head
  auto role = [&](const std::string& name) {
    for (const auto& [k, v] : r.params.by_role)
      if (k == name) return v;
    return uint64_t{0};
  };
  // 262,144 vocab x (30 layers x 256 per-layer width)
  CHECK(role("per_layer_embedding") == 262'144ull * 30 * 256);
  CHECK(role("vision") == 294'126'912u);  // timm mobilenetv5_300m_enc
  CHECK(role("audio") == 681'348'640u);   // 12 conformer layers, 1,536 wide
  // embed_vision: 128 x 2,048 table, two norms, 2,048 x 2,048 projection; embed_audio: the same at 1,536
  CHECK(role("projector") == 128ull * 2'048 + 2 * 2'048 + 2'048ull * 2'048 + 128ull * 1'536 + 2 * 1'536 +
                                 2'048ull * 1'536);
  // Layers 20-29 share KV: sliding ones read layer 18, full ones (every 5th) layer 19.
  REQUIRE(r.spec->attention.size() == 30);
  CHECK(r.spec->attention[20].kv_source_layer == 18);
  CHECK(r.spec->attention[24].kv_source_layer == 19);
  CHECK(r.spec->attention[19].kv_source_layer == -1);
  CHECK(r.kv.shared_kv_layers == 10);
  // 20 caching layers x 2 kv heads x (256 + 256) elements x 2 bytes
  CHECK(r.kv.bytes_per_token == 20u * 2 * 512 * 2);
  CHECK(r.unknown_fields.empty());
}

TEST_CASE("Gemma 4 26B-A4B: the MoE layout reproduces the HUB total and its published split") {
  hfi::Report r = hfi::testing::inspect_dir(hfi::testing::fixtures_dir() / "google/gemma-4-26B-A4B-it").report;
  REQUIRE(r.spec.has_value());
  CHECK(r.params_source == hfi::ParamsSource::Formula);
  CHECK(r.params.total == 25'805'936'206);  // HUB
  // Published split of the same total: 25,233,141,790 language model, 569,550,384 vision tower,
  // 3,244,032 vision projection.
  uint64_t vision = 0, projector = 0, routed = 0, stored = 0;
  for (const auto& t : r.spec->tensors) {
    stored += !t.optional;
    if (t.role == hfi::Role::Vision) vision += t.params();
    if (t.role == hfi::Role::Projector) projector += t.params();
    if (t.role == hfi::Role::RoutedExpert) {
      routed += t.params();
      CHECK(t.active_num == 8);
      CHECK(t.active_den == 128);
    }
  }
  CHECK(stored == 1'013);  // tensors in the published header audit (the tied lm_head is not stored)
  CHECK(vision == 569'550'384u);
  CHECK(projector == 3'244'032u);
  CHECK(r.params.total - vision - projector == 25'233'141'790u);
  // 30 layers x 128 experts x 3 x 704 x 2,816
  CHECK(routed == 30ull * 128 * 3 * 704 * 2'816);
  // 25 sliding layers x 8 kv heads x (256 + 256) + 5 full layers x 2 kv heads x (512 + 512), 2 bytes
  CHECK(r.kv.bytes_per_token == (25u * 8 * 512 + 5u * 2 * 1'024) * 2);
  CHECK(r.kv.shared_kv_layers == 0);
  CHECK(r.unknown_fields.empty());
}

TEST_CASE("metadata-only folder: names reconciled against the index, bytes against total_size") {
  // fixtures/Qwen/Qwen3-30B-A3B holds config.json and the real index, but no .safetensors files.
  auto [snap, r] = hfi::testing::inspect_dir(hfi::testing::fixtures_dir() / "Qwen/Qwen3-30B-A3B");
  CHECK(snap.shards.empty());
  REQUIRE(r.index_reconcile.has_value());
  CHECK(r.index_reconcile->listed_tensors == 18'867);  // TRUTHS.md: 18,867 tensors
  CHECK(r.reconcile.missing.empty());
  CHECK(r.reconcile.unexplained.empty());
  CHECK(r.index_reconcile->expected_bytes == 61'064'245'248u);  // INDEX total_size
  CHECK(r.index_reconcile->total_size == 61'064'245'248u);
  CHECK(r.params_source == hfi::ParamsSource::Formula);
  CHECK(r.params.total == 30'532'122'624);
}

// Index-only fixtures (Mistral-7B, WizardLM-2-8x22B, granite-3b-code) are checked from their
// published.json by test_fixture_catalog.cpp.

TEST_CASE("config-only: the qwen2 formula reproduces Qwen2.5-0.5B's loaded-model count") {
  hfi::Report r = hfi::testing::inspect_dir(hfi::testing::fixtures_dir() / "Qwen/Qwen2.5-0.5B").report;
  CHECK(r.params_source == hfi::ParamsSource::Formula);
  CHECK(r.params.total == 494'032'768);  // printed by a loaded model (TRUTHS.md); tied head, q/k/v biases
  CHECK(r.reconcile.status == hfi::ReconcileStatus::NoWeights);
}

TEST_CASE("config-only: Mistral Small 4 (derived config) is mistral4 MLA + MoE inside mistral3") {
  // The config is DERIVED (fixtures/mistralai/Mistral-Small-4-119B-2603/PROVENANCE.md). The Hub's
  // count (119,401,317,952, FP8 scales included) is quoted publicly; its published.json holds the
  // weights without the scales, which the catalog test checks. Figures below are by hand.
  hfi::Report r = hfi::testing::inspect_dir(hfi::testing::fixtures_dir() / "mistralai/Mistral-Small-4-119B-2603").report;
  CHECK(r.model_type == "mistral3");
  CHECK(r.text_model_type == "mistral4");
  CHECK(r.unknown_fields.empty());
  CHECK(r.params_source == hfi::ParamsSource::Formula);
  // Per layer: norms 2x4096 = 8,192; MLA q_a 1024x4096 + q_a_norm 1024 + q_b (32x128)x1024
  // + kv_a (256+64)x4096 + kv_a_norm 256 + kv_b 32x(64+128)x256 + o 4096x4096 = 28,050,688;
  // router 128x4096 = 524,288; experts 128x3x2048x4096 = 3,221,225,472; shared 3x2048x4096 =
  // 25,165,824; sum 3,274,974,464, x36 = 117,899,080,704. Embedding + head 2x131072x4096 and the
  // final norm: text 118,972,826,624. Pixtral: conv 1024x3x14x14 + ln_pre 1024 + 24 x (2,048 +
  // 4x1024x1024 + 3x4096x1024) = 403,305,472; projector norm 1024 + merger 1024x4096 + linear_1
  // 4096x1024 + linear_2 4096x4096 = 25,166,848. Total 119,401,298,944 (~ the card's 119.4B).
  CHECK(r.params.total == 119'401'298'944);
  // Active: per layer 8,192 + 28,050,688 + 524,288 + 4x3x2048x4096 + 25,165,824 = 154,412,288,
  // x36 + 4,096 + 2x131072x4096 = 6,632,588,288 (a public architecture page says 6.63B active).
  CHECK(r.params.active == 6'632'588'288);
  // MLA: (kv_lora_rank 256 + rope 64) x 36 layers x 2 bytes, every layer.
  CHECK(r.kv.bytes_per_token == 23'040);
  CHECK(r.kv.mla_layers == 36);
}
namespace {

// A fixture repository copied (sparsely: fs::copy would write every hole out as gigabytes of
// zeros) under the test work directory, whose index a test then rewrites.
class IndexEdits {
 public:
  IndexEdits(const std::string& repo, const std::string& name) : dir_(std::filesystem::path(HFINSPECT_TEST_WORK_DIR) / name) {
    std::filesystem::remove_all(dir_);
    hfi::testing::materialize_fixture(hfi::testing::fixtures_dir() / repo, dir_);
    original_ = hfi::testing::slurp(dir_ / "model.safetensors.index.json");
  }
  const std::string& original() const { return original_; }
  // The original index with each `from` replaced by its `to`.
  std::string edited(const std::vector<std::pair<std::string, std::string>>& edits) const {
    std::string index = original_;
    for (const auto& [from, to] : edits) {
      auto at = index.find(from);
      REQUIRE(at != std::string::npos);
      index.replace(at, from.size(), to);
    }
    return index;
  }
  // The index check's findings with `index` as the repository's index.
  std::vector<std::string> findings(const std::string& index) const {
    std::ofstream(dir_ / "model.safetensors.index.json", std::ios::trunc) << index;
    hfi::LocalSource source(dir_);
    auto snap = hfi::load_snapshot(source);
    REQUIRE(snap.ok());
    return hfi::find_index_mismatches({snap->index ? &*snap->index : nullptr, snap->index_path, snap->shards});
  }

 private:
  std::filesystem::path dir_;
  std::string original_;
};

}  // namespace

TEST_CASE("an index that disagrees with the headers is reported entry by entry") {
  // gpt-oss-20b's index, edited three ways: lm_head moved to another shard, a tensor no header
  // holds, and the embedding left out.
  IndexEdits gpt_oss("openai/gpt-oss-20b", "index-mismatch");
  auto found = gpt_oss.findings(gpt_oss.edited(
      {{"\"lm_head.weight\": \"model-00002-of-00002.safetensors\"", "\"lm_head.weight\": \"model-00001-of-00002.safetensors\""},
       {"\"model.embed_tokens.weight\": \"model-00002-of-00002.safetensors\"", "\"model.ghost.weight\": \"model-00002-of-00002.safetensors\""}}));
  REQUIRE(found.size() == 3);
  CHECK(found[0] == "lm_head.weight: index says model-00001-of-00002.safetensors, header of model-00002-of-00002.safetensors holds it");
  CHECK(found[1] == "model.embed_tokens.weight: in model-00002-of-00002.safetensors but not in the index");
  CHECK(found[2] == "model.ghost.weight: listed in the index but in no shard header");
}

TEST_CASE("the index check gives the same findings for an index in header order and in any other") {
  // Llama-3.1-8B's index lists each shard's tensors in the order its header stores them (writers
  // sort both by name), which the check walks in step; the same entries reversed take the lookup
  // path. One entry moved to another shard, and total_size off by one byte, are found either way.
  IndexEdits llama("meta-llama/Llama-3.1-8B", "index-order");
  // The fixture is written one weight_map entry per line.
  auto reversed = [](const std::string& index) {
    size_t open = index.find('{', index.find("\"weight_map\""));
    size_t close = index.find('}', open);
    std::vector<std::string> entries;
    std::istringstream lines(index.substr(open + 1, close - open - 1));
    for (std::string line; std::getline(lines, line);) {
      while (!line.empty() && (line.back() == ',' || line.back() == ' ')) line.pop_back();
      if (line.find(':') != std::string::npos) entries.push_back(line);
    }
    REQUIRE(entries.size() == 291);  // the fixture's tensors
    std::string body = "\n";
    for (size_t i = entries.size(); i-- > 0;) body += entries[i] + (i ? ",\n" : "\n");
    return index.substr(0, open + 1) + body + index.substr(close);
  };
  CHECK(llama.findings(llama.original()).empty());
  CHECK(llama.findings(reversed(llama.original())).empty());

  const std::string moved = llama.edited({{"\"model.layers.0.input_layernorm.weight\": \"model-00001-of-00004.safetensors\"",
                                           "\"model.layers.0.input_layernorm.weight\": \"model-00002-of-00004.safetensors\""}});
  const std::vector<std::string> moved_finding = {
      "model.layers.0.input_layernorm.weight: index says model-00002-of-00004.safetensors, header of "
      "model-00001-of-00004.safetensors holds it"};
  CHECK(llama.findings(moved) == moved_finding);
  CHECK(llama.findings(reversed(moved)) == moved_finding);

  const std::string one_more = llama.edited({{"16060522496", "16060522497"}});
  const std::vector<std::string> size_finding = {
      "metadata.total_size: 16,060,522,497 B, but the 4 shard(s) the weight_map names hold 16,060,522,496 B of tensor data "
      "(1 B less)"};
  CHECK(llama.findings(one_more) == size_finding);
  CHECK(llama.findings(reversed(one_more)) == size_finding);
}

namespace {

// A fixture whose config names a model_type no spec covers (and, unless `keep_class`, an
// architectures class no spec covers either).
hfi::Report inspect_as_unknown(const std::string& repo, const std::string& model_type, bool keep_class = false) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "unknown-type" / repo;
  fs::remove_all(dir);
  hfi::testing::materialize_fixture(hfi::testing::fixtures_dir() / repo, dir);
  std::string config = hfi::testing::slurp(dir / "config.json");
  auto at = config.find("\"model_type\"");
  REQUIRE(at != std::string::npos);
  auto open = config.find('"', config.find(':', at));
  auto close = config.find('"', open + 1);
  config.replace(open + 1, close - open - 1, model_type);
  if (!keep_class) {
    const auto cls = config.find("ForCausalLM\"");
    REQUIRE(cls != std::string::npos);
    const auto start = config.rfind('"', cls) + 1;
    config.replace(start, cls - start, "BrandNew");
  }
  std::ofstream(dir / "config.json", std::ios::trunc) << config;
  return hfi::testing::inspect_dir(dir).report;
}

}  // namespace

TEST_CASE("an unknown model_type still gets exact totals and an inferred structure") {
  auto smol = inspect_as_unknown("HuggingFaceTB/SmolLM2-135M", "brand_new_dense");
  CHECK(smol.params.total == 134'515'008);  // the same published count: totals come from the headers
  REQUIRE(smol.inferred);
  // SmolLM2-135M's config: 30 hidden layers, hidden size 576, vocabulary 49,152, tied embeddings.
  CHECK(smol.inferred->layers == 30);
  CHECK(smol.inferred->hidden_size == 576u);
  CHECK(smol.inferred->vocab_size == 49'152u);
  CHECK(smol.inferred->lm_head.empty());
  CHECK(smol.inferred->attention == "separate q/k/v/o projections");
  CHECK(smol.inferred->mlp == "gated (gate/up/down)");
  CHECK(smol.inferred->experts == 0);
  CHECK(smol.inferred->unplaced.empty());
  // Never silently 0: the KV cache from the generic fields, 30 layers × 3 KV heads × (64 + 64),
  // head_dim = 576 / 9 heads, at 2 bytes.
  CHECK(smol.kv.inferred);
  CHECK(smol.kv.bytes_per_token == 30u * 3u * 128u * 2u);

  auto moe = inspect_as_unknown("Qwen/Qwen3-30B-A3B", "brand_new_moe");
  CHECK(moe.params.total == 30'532'122'624);  // HUB
  REQUIRE(moe.inferred);
  // Qwen3-30B-A3B's config: 48 layers, 128 experts, hidden size 2048, vocabulary 151,936.
  CHECK(moe.inferred->layers == 48);
  CHECK(moe.inferred->experts == 128);
  CHECK(moe.inferred->router);
  CHECK(moe.inferred->hidden_size == 2'048u);
  CHECK(moe.inferred->vocab_size == 151'936u);
  CHECK(moe.inferred->lm_head == "lm_head.weight");
  CHECK(moe.inferred->placed_params == moe.params.total);
}
TEST_CASE("an index-only folder of a model_type without a spec: parameters from total_size, said so") {
  // Qwen3-30B-A3B's config (renamed type and class) and its real index, no shards: total_size
  // 61,064,245,248 bytes at bfloat16 is 30,532,122,624 parameters, the published count.
  namespace fs = std::filesystem;
  fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "unknown-type-index-only";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path fixture = hfi::testing::fixtures_dir() / "Qwen/Qwen3-30B-A3B";
  fs::copy_file(fixture / "model.safetensors.index.json", dir / "model.safetensors.index.json");
  std::string config = hfi::testing::slurp(fixture / "config.json");
  for (auto [from, to] : {std::pair<std::string, std::string>{"\"qwen3_moe\"", "\"brand_new_moe\""}, {"Qwen3MoeForCausalLM", "BrandNewForCausalLM"}}) {
    REQUIRE(config.find(from) != std::string::npos);
    config.replace(config.find(from), from.size(), to);
  }
  std::ofstream(dir / "config.json") << config;
  auto r = hfi::testing::inspect_dir(dir).report;
  CHECK_FALSE(r.spec);
  CHECK(r.params_source == hfi::ParamsSource::IndexTotalSize);
  CHECK(r.params.total == 30'532'122'624);
  CHECK(r.memory.weight_bytes == 61'064'245'248u);
}

TEST_CASE("a model_type without a spec is read with the family its architectures class names") {
  // SmolLM2-135M with model_type renamed but still LlamaForCausalLM: the llama spec, and every
  // tensor explained, so the published count stands on a reconciled layout.
  auto r = inspect_as_unknown("HuggingFaceTB/SmolLM2-135M", "my_private_llama", true);
  REQUIRE(r.spec);
  CHECK(r.family == "llama");
  CHECK(r.model_type == "my_private_llama");
  CHECK(r.params.total == 134'515'008);
  CHECK(r.reconcile.status == hfi::ReconcileStatus::Complete);
  CHECK(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) { return n.find("LlamaForCausalLM") != std::string::npos; }));
}

TEST_CASE("a config without model_type is read with the family its architectures class names") {
  // google/umt5-small's config.json on the Hub has no model_type key. mt5-small (published
  // 300,176,768) with its model_type line removed stands in: MT5ForConditionalGeneration -> mt5.
  namespace fs = std::filesystem;
  fs::path dir = fs::path(HFINSPECT_TEST_WORK_DIR) / "no-model-type" / "mt5-small";
  fs::remove_all(dir);
  hfi::testing::materialize_fixture(hfi::testing::fixtures_dir() / "google/mt5-small", dir);
  std::string config = hfi::testing::slurp(dir / "config.json");
  const auto at = config.find("\"model_type\"");
  REQUIRE(at != std::string::npos);
  config.erase(config.rfind('\n', at), config.find('\n', at) - config.rfind('\n', at));
  REQUIRE(config.find("model_type") == std::string::npos);
  std::ofstream(dir / "config.json", std::ios::trunc) << config;
  auto r = hfi::testing::inspect_dir(dir).report;
  REQUIRE(r.spec);
  CHECK(r.family == "mt5");
  CHECK(r.params.total == 300'176'768);
  CHECK(r.reconcile.status == hfi::ReconcileStatus::Complete);
  CHECK(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
    return n.starts_with("config.json names no model_type: read with the mt5 spec") && n.find("MT5ForConditionalGeneration") != std::string::npos;
  }));
}

TEST_CASE("an index whose total_size disagrees with the headers' tensor bytes is reported once") {
  // gpt-oss-20b's index (total_size 13,761,264,768 = its three headers' tensor bytes), with
  // total_size edited down and up.
  IndexEdits gpt_oss("openai/gpt-oss-20b", "index-total-size");
  auto with_total = [&](const std::string& total) { return gpt_oss.findings(gpt_oss.edited({{"13761264768", total}})); };
  CHECK(with_total("13761264768").empty());
  auto less = with_total("13761260672");
  REQUIRE(less.size() == 1);
  CHECK(less[0] == "metadata.total_size: 13,761,260,672 B, but the 3 shard(s) the weight_map names hold 13,761,264,768 B "
                   "of tensor data (4,096 B more)");
  auto more = with_total("13761264776");
  REQUIRE(more.size() == 1);
  CHECK(more[0] == "metadata.total_size: 13,761,264,776 B, but the 3 shard(s) the weight_map names hold 13,761,264,768 B "
                   "of tensor data (8 B less)");
}
