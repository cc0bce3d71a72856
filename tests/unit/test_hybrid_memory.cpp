// Hybrid models: only attention layers cache keys and values per token; the recurrent layers
// (gated delta-net, short convolution) keep a fixed state per sequence. The expected figures are
// worked out by hand from each fixture's config.json below, not taken from the spec code.
#include <catch2/catch.hpp>

#include "support/inspect.hpp"

namespace {

hfi::Report report_of(const std::string& repo) {
  hfi::Report r = hfi::testing::inspect_fixture(repo).report;
  REQUIRE(r.spec.has_value());
  return r;
}

}  // namespace

TEST_CASE("Qwen3-Next: delta-net state per sequence, KV from the gated-attention layers only") {
  // config.json: num_hidden_layers 48, full_attention_interval 4 -> layers 3, 7, ..., 47 are full
  // attention (12), the other 36 are gated delta-net. torch_dtype bfloat16 -> 2 bytes/element.
  //
  // Delta-net layer, per sequence:
  //   conv state:  channels q + k + v = 2 * linear_num_key_heads(16) * linear_key_head_dim(128)
  //                + linear_num_value_heads(32) * linear_value_head_dim(128) = 4096 + 4096 = 8192,
  //                times linear_conv_kernel_dim(4) - 1 = 3 kept inputs          ->  24,576
  //   delta state: linear_num_value_heads(32) * key dim(128) * value dim(128)    -> 524,288
  //   per layer 548,864 elements; 36 layers -> 19,759,104 elements -> 39,518,208 bytes.
  //
  // KV per token: 12 layers * num_key_value_heads(2) * (head_dim 256 for K + 256 for V)
  //   = 12,288 elements -> 24,576 bytes.
  auto r = report_of("Qwen/Qwen3-Next-80B-A3B-Instruct");
  CHECK(r.kv.bytes_per_element == 2);
  CHECK(r.kv.attention_layers == 12);
  CHECK(r.kv.recurrent_layers == 36);
  CHECK(r.kv.recurrent_state_bytes == 39'518'208);
  CHECK(r.kv.bytes_per_token == 24'576);
  CHECK(r.kv.bytes_at_context == 24'576 * r.kv.context);  // no windows
}

TEST_CASE("LFM2-350M: short-conv state per sequence, KV from the six attention layers only") {
  // config.json: num_hidden_layers 16, full_attn_idxs [2, 5, 8, 10, 12, 14] -> 6 attention
  // layers, 10 short-conv layers. torch_dtype bfloat16 -> 2 bytes/element.
  //
  // Short-conv layer, per sequence: conv_dim(1024) channels times conv_L_cache(3) - 1 = 2 kept
  //   inputs -> 2,048 elements; 10 layers -> 20,480 elements -> 40,960 bytes.
  //
  // KV per token: head_dim = hidden_size(1024) / num_attention_heads(16) = 64;
  //   6 layers * num_key_value_heads(8) * (64 + 64) = 6,144 elements -> 12,288 bytes.
  auto r = report_of("LiquidAI/LFM2-350M");
  CHECK(r.kv.bytes_per_element == 2);
  CHECK(r.kv.attention_layers == 6);
  CHECK(r.kv.recurrent_layers == 10);
  CHECK(r.kv.recurrent_state_bytes == 40'960);
  CHECK(r.kv.bytes_per_token == 12'288);
}

TEST_CASE("Nemotron-3-Nano: Mamba2 state per sequence, KV from the six '*' layers; MoE layers cache nothing") {
  // config.json: hybrid_override_pattern "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME"
  // -> 23 'M' (Mamba2), 6 '*' (attention), 23 'E' (MoE, no sequence mixing). bfloat16 -> 2 bytes.
  //
  // Mamba2 layer, per sequence:
  //   conv state: d_inner = mamba_num_heads(64) * mamba_head_dim(64) = 4096, plus B and C
  //               2 * n_groups(8) * ssm_state_size(128) = 2048 -> 6144 channels, times
  //               conv_kernel(4) - 1 = 3 kept inputs                              ->  18,432
  //   SSM state:  mamba_num_heads(64) * mamba_head_dim(64) * ssm_state_size(128) -> 524,288
  //   per layer 542,720 elements; 23 layers -> 12,482,560 elements -> 24,965,120 bytes.
  //
  // KV per token: 6 layers * num_key_value_heads(2) * (head_dim 128 + 128) = 3,072 elements
  //   -> 6,144 bytes.
  auto r = report_of("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
  CHECK(r.kv.bytes_per_element == 2);
  CHECK(r.kv.attention_layers == 6);
  CHECK(r.kv.recurrent_layers == 23);
  CHECK(r.kv.recurrent_state_bytes == 24'965'120);
  CHECK(r.kv.bytes_per_token == 6'144);
}

TEST_CASE("Qwen3.5: the delta-net state in mamba_ssm_dtype, the conv inputs in the model's dtype") {
  // text_config: 40 layers, every 4th full attention -> 30 gated delta-net layers; dtype float16,
  // mamba_ssm_dtype float32.
  //   conv inputs: (2 * 16 key heads * 128 + 32 value heads * 128) * (kernel 4 - 1) = 24,576
  //                elements at 2 bytes                                              ->    49,152
  //   delta state: 32 value heads * 128 * 128 = 524,288 elements at 4 bytes         -> 2,097,152
  //   per layer 2,146,304 bytes; 30 layers -> 64,389,120 bytes.
  auto r = report_of("bryce-hoehn/Qwen3.5-18B-REAP-A3B-Coding");
  CHECK(r.kv.recurrent_layers == 30);
  CHECK(r.kv.state_dtypes.conv_bytes == 2);
  CHECK(r.kv.state_dtypes.ssm_bytes == 4);
  CHECK(r.kv.recurrent_state_bytes == 64'389'120);
}

TEST_CASE("Zamba2-1.2B: the shared block's weights count once as parameters, once per use in FLOPs") {
  // config.json: hidden 2048, 32 heads over concat(hidden, embeddings) = 4096 wide (head_dim 128),
  // intermediate 8192, one shared block called by the 6 "hybrid" layers, vocab 32000, tied head.
  // The shared block's own weights (its rank-128 adapters are per use, so they run once each):
  //   input_layernorm 4,096 + pre_ff_layernorm 2,048
  //   q, k, v 3 × 4096 × 4096 = 50,331,648; o_proj 2048 × 4096 = 8,388,608
  //   gate_up_proj 16384 × 2048 = 33,554,432; down_proj 2048 × 8192 = 16,777,216
  //   -> 109,058,048, run 6 times: 5 × 109,058,048 = 545,290,240 more multiply-adds per token.
  // Fixed FLOPs = 2 × (published total 1,215,064,704 - embedding 32000 × 2048 = 65,536,000
  //   + the tied head's 65,536,000 + 545,290,240) = 3,520,709,888.
  // Attention at 4,096 tokens: 6 layers × 2 × 32 heads × (128 + 128) × 4096 = 402,653,184.
  auto r = report_of("Zyphra/Zamba2-1.2B-Instruct-v2");
  CHECK(r.params.total == 1'215'064'704ull);
  CHECK(r.params.repeated_runs == 545'290'240ull);
  CHECK(r.flops.fixed == 3'520'709'888ull);
  CHECK(r.flops.context == 4096);
  CHECK(r.flops.attention == 402'653'184ull);
  CHECK(r.kv.attention_layers == 6);
  CHECK(r.kv.recurrent_layers == 38);
}
