// `fit`: the split of weights and KV cache over a deployment. Every expected figure is worked out
// by hand below from the fixture's config.json (or, where the weights as stored are the input,
// from the main report's own count of them), not taken from the planner.
#include <catch2/catch.hpp>

#include "core/quantity.hpp"
#include "pipeline/fit.hpp"
#include "support/inspect.hpp"
#include "support/run_cli.hpp"

namespace {

constexpr uint64_t kGiB = uint64_t{1} << 30;

hfi::ReportOptions at(std::optional<uint64_t> context, const std::string& kv_dtype) {
  hfi::ReportOptions options;
  options.context = context;
  options.kv_dtype = kv_dtype;
  return options;
}

hfi::Report report_of(const std::string& repo, hfi::ReportOptions options = {}) {
  hfi::Report r = hfi::testing::inspect_fixture(repo, options).report;
  REQUIRE(r.spec.has_value());
  return r;
}

// A GPU of `bytes`, all of it usable: the arithmetic the issue asks to be exact.
hfi::FitRequest whole_gpu(uint64_t bytes, uint32_t tp = 1) {
  hfi::FitRequest q;
  q.gpu_bytes = bytes;
  q.tp = tp;
  q.utilization = {1, 1};
  q.reserve_bytes = 0;
  return q;
}

hfi::FitPlan plan(const hfi::Report& r, const hfi::FitRequest& q) {
  auto answer = hfi::fit_report(r, q);
  if (!answer) FAIL(answer.error().describe());
  return answer->plan;
}

}  // namespace

TEST_CASE("fit: sizes and token counts as people type them") {
  CHECK(hfi::parse_token_count("4096") == 4096ull);
  CHECK(hfi::parse_token_count("32k") == 32768ull);
  CHECK(hfi::parse_token_count("128K") == 131072ull);
  CHECK(hfi::parse_token_count("1M") == 1048576ull);
  CHECK_FALSE(hfi::parse_token_count("1.5k"));
  CHECK_FALSE(hfi::parse_token_count("12x"));
  CHECK_FALSE(hfi::parse_token_count("99999999999999999999k"));
  CHECK(hfi::parse_byte_size("80GiB") == 80 * kGiB);
  CHECK(hfi::parse_byte_size("24GB") == 24'000'000'000ull);
  CHECK(hfi::parse_byte_size("24 gb") == 24'000'000'000ull);
  CHECK(hfi::parse_byte_size("93.5GB") == 93'500'000'000ull);
  CHECK(hfi::parse_byte_size("1.5KiB") == 1536ull);
  CHECK(hfi::parse_byte_size("512") == 512ull);
  CHECK_FALSE(hfi::parse_byte_size("80XB"));
  CHECK_FALSE(hfi::parse_byte_size("GiB"));
  CHECK(hfi::parse_fraction("0.9")->numerator == 9);
  CHECK(hfi::parse_fraction("0.90")->denominator == 100);
  CHECK_FALSE(hfi::parse_fraction("1.5"));
  CHECK_FALSE(hfi::parse_fraction("0"));
  CHECK_FALSE(hfi::parse_fraction("18446744073709551617"));  // would wrap to 1 in 64 bits
}

TEST_CASE("fit: Llama-3.1-8B on one 80 GiB GPU, the issue's example") {
  // bf16, 32 layers, 8 KV heads of 128: K and V are 2 × 8 × 128 elements per layer per token,
  // 2 bytes each -> 32 × 4,096 = 131,072 bytes per token. The weights: 8,030,261,248
  // parameters (the published count) at 2 bytes = 16,060,522,496.
  auto r = report_of("meta-llama/Llama-3.1-8B");
  auto p = plan(r, whole_gpu(80 * kGiB));
  CHECK(p.per_gpu.weight_bytes == 16'060'522'496ull);
  CHECK(p.per_gpu.kv_bytes_per_token == 131'072ull);
  // (85,899,345,920 - 16,060,522,496) / 131,072 = 532,827.94
  CHECK(p.kv_capacity_tokens == 532'827ull);
  CHECK(p.workload.context == 131'072ull);  // the model's maximum, the default
  CHECK(p.max_batch == 4);                // 532,827 / 131,072
  CHECK(p.max_context == 131'072ull);       // capped at the maximum
  CHECK(p.fits);
  SECTION("a GPU smaller than the weights") {
    auto small = plan(r, whole_gpu(16 * kGiB));
    CHECK_FALSE(small.fits);
    // 16,060,522,496 + 131,072 × 131,072 - 17,179,869,184
    CHECK(small.missing_bytes == 16'060'522'496ull + 131'072ull * 131'072ull - 16 * kGiB);
    CHECK(small.max_batch == 0);
  }
  SECTION("utilization and reserve come off the top") {
    hfi::FitRequest q = whole_gpu(80 * kGiB);
    q.utilization = {9, 10};
    q.reserve_bytes = 2 * kGiB;
    auto p90 = plan(r, q);
    // 85,899,345,920 × 9 / 10 = 77,309,411,328; minus 2 GiB = 75,161,927,680
    CHECK(p90.usable_bytes == 75'161'927'680ull);
    CHECK(p90.kv_capacity_tokens == (75'161'927'680ull - 16'060'522'496ull) / 131'072ull);
  }
}

TEST_CASE("fit: Llama-3.1-8B at TP 16, more ranks than KV heads") {
  // 32 query heads split 2 per rank; 8 KV heads cannot be split 16 ways, so each rank keeps one,
  // replicated (vLLM: max(1, 8 // 16)). Per rank and layer:
  //   q_proj, o_proj  4096 × 4096 × 2 B / 16          = 2,097,152 each
  //   k_proj, v_proj  1024 × 4096 × 2 B × 1 head / 8  = 1,048,576 each
  //   gate, up, down  14336 × 4096 × 2 B / 16         = 7,340,032 each
  //   two RMSNorms    2 × 4096 × 2 B (replicated)     = 16,384
  //   -> 28,327,936; 32 layers -> 906,493,952
  // embed_tokens and lm_head: 128,256 rows (a multiple of 64) / 16 = 8,016 rows × 4096 × 2 B
  //   = 65,667,072 each; the final norm 8,192.
  auto r = report_of("meta-llama/Llama-3.1-8B");
  auto p = plan(r, whole_gpu(80 * kGiB, 16));
  CHECK(p.per_gpu.weight_bytes == 906'493'952ull + 2 * 65'667'072ull + 8'192ull);
  // KV per rank: 32 layers × 1 head × (128 + 128) × 2 B
  CHECK(p.per_gpu.kv_bytes_per_token == 32ull * 256ull * 2ull);
  CHECK(p.gpus == 16);
}

TEST_CASE("fit: DeepSeek-V3's MLA latent is replicated on every rank, not split") {
  // kv_lora_rank 512 + qk_rope_head_dim 64 = 576 elements per token per layer, 61 layers, bf16.
  auto r = report_of("deepseek-ai/DeepSeek-V3", at(std::nullopt, "bf16"));
  auto one = plan(r, whole_gpu(192 * kGiB, 1));
  auto eight = plan(r, whole_gpu(192 * kGiB, 8));
  CHECK(one.per_gpu.kv_bytes_per_token == 576ull * 61ull * 2ull);
  CHECK(eight.per_gpu.kv_bytes_per_token == 576ull * 61ull * 2ull);
  CHECK(eight.per_gpu.weight_bytes < one.per_gpu.weight_bytes / 7);
}

TEST_CASE("fit: Qwen3-30B-A3B's experts, split within each expert or whole per rank") {
  auto r = report_of("Qwen/Qwen3-30B-A3B");
  hfi::FitRequest q = whole_gpu(80 * kGiB, 8);
  auto split = plan(r, q);
  q.ep = true;
  auto whole = plan(r, q);
  // 128 experts over 8 ranks: 16 whole experts each hold as much as 1/8 of all 128.
  CHECK(whole.per_gpu.weight_bytes == split.per_gpu.weight_bytes);
  // 32 heads and 4 KV heads: TP 3 divides neither, which engines refuse.
  q = whole_gpu(80 * kGiB, 3);
  auto refused = hfi::fit_report(r, q);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().file == "--tp");
  CHECK_THAT(refused.error().message, Catch::Contains("32 attention heads"));
}

TEST_CASE("fit: gpt-oss-20b's sliding-window layers hold at most their window") {
  // 24 layers alternating sliding (window 128) and full attention, 8 KV heads of 64, bf16 KV:
  // each layer caches 8 × (64 + 64) × 2 B = 2,048 bytes per token.
  auto r = report_of("openai/gpt-oss-20b", at(131072, "bf16"));
  auto p = plan(r, whole_gpu(80 * kGiB));
  CHECK(p.per_gpu.kv_bytes_per_token == 24ull * 2'048ull);
  // The weights as stored (MXFP4 experts): the main report's count of the headers' bytes.
  REQUIRE(p.per_gpu.weight_bytes == r.memory.weight_bytes);
  const uint64_t room = 80 * kGiB - r.memory.weight_bytes;
  // One sequence of 131,072 tokens: 12 full layers keep them all, 12 sliding ones 128 each.
  const uint64_t sequence = 12ull * 2'048ull * 131'072ull + 12ull * 2'048ull * 128ull;
  CHECK(p.max_batch == room / sequence);
  CHECK(p.kv_capacity_tokens == room / (24ull * 2'048ull));
}

TEST_CASE("fit: Qwen3-Next's delta-net state splits over heads with TP") {
  // test_hybrid_memory.cpp works the state out: 548,864 elements per delta-net layer, 36 layers.
  // At TP 2 a rank keeps half of each layer's heads: 274,432 × 36 × 2 B. KV: 12 attention layers
  // with 2 KV heads of 256, one per rank: 12 × 1 × 512 × 2 B.
  auto r = report_of("Qwen/Qwen3-Next-80B-A3B-Instruct");
  auto p = plan(r, whole_gpu(80 * kGiB, 2));
  CHECK(p.per_gpu.state_bytes_per_sequence == 274'432ull * 36ull * 2ull);
  CHECK(p.per_gpu.kv_bytes_per_token == 12ull * 512ull * 2ull);
}

TEST_CASE("fit: Nemotron-3-Nano's Mamba2 state per sequence, split over heads at TP 2") {
  // test_hybrid_memory.cpp works it out: 542,720 state elements per Mamba2 layer, 23 layers; at
  // TP 2 a rank keeps 271,360 of each, in bf16 (the config declares no mamba_ssm_dtype). KV: six
  // attention layers with 2 KV heads of 128, one per rank: 6 × (128 + 128) × 2 B.
  auto r = report_of("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
  auto p = plan(r, whole_gpu(80 * kGiB, 2));
  CHECK(p.per_gpu.state_bytes_per_sequence == 271'360ull * 23ull * 2ull);
  CHECK(p.per_gpu.kv_bytes_per_token == 6ull * 256ull * 2ull);
}

TEST_CASE("fit: pipeline stages take whole layers, the embeddings the first and the head the last") {
  // Llama-3.1-8B in bf16, one decoder layer:
  //   q, o 4096 × 4096, k, v 1024 × 4096, gate, up 14336 × 4096, down 4096 × 14336, two norms
  const uint64_t layer = (2ull * 4096 * 4096 + 2ull * 1024 * 4096 + 3ull * 14336 * 4096 + 2ull * 4096) * 2;
  const uint64_t table = 128'256ull * 4096 * 2;  // embed_tokens, and lm_head
  auto r = report_of("meta-llama/Llama-3.1-8B");
  hfi::FitRequest q = whole_gpu(80 * kGiB);
  q.pp = 2;
  auto two = plan(r, q);
  // 16 layers each; the last stage also holds lm_head and the final norm, the first embed_tokens.
  CHECK(two.per_gpu.weight_bytes == 16 * layer + table + 4096ull * 2);
  CHECK(two.per_gpu.kv_bytes_per_token == 16ull * 4'096ull);
  CHECK(two.gpus == 2);
  // Three stages: 32 = 10 + 10 + 10, the two left over going to the stages before the last
  // (vLLM's get_pp_indices): 11, 11, 10. The first stage, with embed_tokens, is the busiest.
  q.pp = 3;
  auto three = plan(r, q);
  CHECK(three.per_gpu.weight_bytes == 11 * layer + table);
  CHECK(three.per_gpu.kv_bytes_per_token == 11ull * 4'096ull);
}

TEST_CASE("fit: a checkpoint served in another format, --weight-dtype") {
  // Llama-3.1-8B with its linear weights as int4 (4 bits, and per group of 128 inputs an FP16
  // scale and a 4-bit zero point). Per layer, [out, in]:
  //   q, o [4096, 4096]: 8,388,608 + 4096 × 32 groups × 2.5 B = 8,716,288 each
  //   k, v [1024, 4096]: 2,097,152 + 1024 × 32 × 2.5           = 2,179,072 each
  //   gate, up [14336, 4096]: 29,360,128 + 14336 × 32 × 2.5    = 30,507,008 each
  //   down [4096, 14336]: 29,360,128 + 4096 × 112 × 2.5        = 30,507,008
  //   norms 16,384 (as stored)
  // Embeddings and head stay bf16: 2 × 128,256 × 4096 × 2 B; the final norm 8,192.
  auto r = report_of("meta-llama/Llama-3.1-8B");
  hfi::FitRequest q = whole_gpu(80 * kGiB);
  q.weight_format = hfi::WeightFormat::INT4;
  auto p = plan(r, q);
  const uint64_t layer = 2 * 8'716'288ull + 2 * 2'179'072ull + 3 * 30'507'008ull + 16'384ull;
  CHECK(p.per_gpu.weight_bytes == 32 * layer + 2ull * 128'256ull * 4096ull * 2ull + 8'192ull);
}

TEST_CASE("fit: the command line") {
  const std::string dir = (hfi::testing::fixtures_dir() / "meta-llama/Llama-3.1-8B").string();
  auto text = hfi::testing::run_cli("fit " + dir + " --gpu-mem 80GiB --utilization 1 --reserve 0");
  REQUIRE(text.code == 0);
  CHECK_THAT(text.out, Catch::Contains("532,827 tokens of KV"));
  for (size_t at = 0, next; at < text.out.size(); at = next + 1) {
    next = text.out.find('\n', at);
    if (next == std::string::npos) next = text.out.size();
    CHECK(next - at <= 80);
  }
  auto bad_size = hfi::testing::run_cli("fit " + dir + " --gpu-mem 80XB");
  CHECK(bad_size.code == 2);
  CHECK_THAT(bad_size.err, Catch::Contains("80GiB"));
  auto bad_gpu = hfi::testing::run_cli("fit " + dir + " --gpu h999");
  CHECK(bad_gpu.code == 2);
  CHECK_THAT(bad_gpu.err, Catch::Contains("h100-80gb"));
  auto bad_tp = hfi::testing::run_cli("fit " + dir + " --gpu-mem 80GiB --tp 3");
  CHECK(bad_tp.code == 2);
  CHECK_THAT(bad_tp.err, Catch::Contains("--tp 3 does not divide the 32 attention heads"));
}
