// decode_storage() on synthetic headers: one 4096 x 4096 linear per quantization scheme, laid out
// as ../shared/docs/quant-formats.md §2-§10 describe. The byte totals and bits per weight checked
// against are the independent figures of its worked example (§12.2); the others are derived in the
// comment beside them from the shapes in the reference, not from running hfinspect.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "analysis/gptq_bias_buffers.hpp"
#include "analysis/storage.hpp"
#include "source/local_source.hpp"
#include "source/snapshot.hpp"
#include "support/fixture_repo.hpp"

namespace {

using hfi::Dtype;
using hfi::QuantScheme;

constexpr uint64_t kN = 4096ull * 4096;  // logical elements of the example linear

struct T {
  std::string name;
  Dtype dtype;
  std::vector<uint64_t> shape;
};

// One shard holding `tensors` back to back.
std::vector<hfi::ShardHeader> shard(const std::vector<T>& tensors) {
  hfi::ShardHeader s;
  s.path = "model.safetensors";
  uint64_t at = 0;
  for (const auto& t : tensors) {
    hfi::TensorInfo i;
    i.name = t.name;
    i.dtype = t.dtype;
    i.shape = t.shape;
    i.elements = 1;
    for (uint64_t d : t.shape) i.elements *= d;
    i.begin = at;
    i.end = at + i.elements * hfi::dtype_bits(t.dtype) / 8;
    at = i.end;
    s.header.tensors.push_back(std::move(i));
  }
  s.header.data_bytes = at;
  s.header.own_names();  // the names above are views into `tensors`
  return {s};
}

// The same tensors without the one whose name ends in `suffix`.
std::vector<T> without(std::vector<T> tensors, const std::string& suffix) {
  auto it = std::find_if(tensors.begin(), tensors.end(), [&](const T& t) { return t.name.ends_with(suffix); });
  REQUIRE(it != tensors.end());
  tensors.erase(it);
  return tensors;
}

struct Expect {
  QuantScheme scheme;
  std::string logical_name;
  std::vector<uint64_t> shape;
  std::string format;
  uint64_t value_bytes;
  uint64_t bookkeeping_bytes;
  std::optional<uint32_t> bits;
  std::optional<uint32_t> group;
};

// Decodes `tensors` (one quantized module, nothing else) and checks it against `e`.
hfi::StorageView check_one(const std::vector<T>& tensors, const Expect& e) {
  hfi::StorageView v = hfi::decode_storage(shard(tensors));
  INFO("expected " << hfi::quant_scheme_name(e.scheme) << " " << e.format);
  REQUIRE(v.quant_modules.size() == 1);
  const hfi::QuantModule& m = v.quant_modules[0];
  INFO("decoded as " << hfi::quant_scheme_name(m.scheme));
  for (const auto& p : m.problems) INFO("problem: " << p);
  CHECK(m.scheme == e.scheme);
  CHECK(m.problems.empty());
  CHECK(m.missing.empty());
  CHECK(m.bits == e.bits);
  CHECK(m.group_size == e.group);
  CHECK(m.value_bytes == e.value_bytes);
  CHECK(m.bookkeeping_bytes == e.bookkeeping_bytes);
  CHECK(m.stored_tensors == tensors.size());
  REQUIRE(v.logical.size() == 1);
  REQUIRE(m.logical == 0);
  const hfi::LogicalTensor& l = v.logical[0];
  CHECK(l.name == e.logical_name);
  CHECK(l.shape == e.shape);
  uint64_t n = 1;
  for (uint64_t d : e.shape) n *= d;
  CHECK(l.params == n);
  CHECK(l.format == e.format);
  CHECK(l.scheme == e.scheme);
  CHECK(l.stored_bytes == e.value_bytes);
  CHECK(l.bookkeeping_bytes == e.bookkeeping_bytes);
  CHECK(v.bookkeeping.size() == tensors.size() - 1);
  for (const auto& b : v.bookkeeping) CHECK(hfi::owner_name(v, b) == e.logical_name);
  CHECK(v.orphan_quant_tensors.empty());
  return v;
}

double bpw(const hfi::StorageView& v) {
  const auto& m = v.quant_modules.at(0);
  return 8.0 * static_cast<double>(m.value_bytes + m.bookkeeping_bytes) / static_cast<double>(v.logical.at(0).params);
}

const hfi::QuantModule& only_module(const hfi::StorageView& v) {
  REQUIRE(v.quant_modules.size() == 1);
  return v.quant_modules[0];
}

std::string kind_of(const hfi::StorageView& v, const std::string& suffix) {
  for (const auto& b : v.bookkeeping)
    if (b.name.ends_with(suffix)) return std::string(b.kind);
  return "";
}

const std::string P = "model.layers.0.self_attn.q_proj";

}  // namespace

TEST_CASE("quant layout: FP8 block 128x128 with F32 scales (16,781,312 B, 8.002 bpw)") {
  std::vector<T> t = {{P + ".weight", Dtype::F8_E4M3, {4096, 4096}}, {P + ".weight_scale_inv", Dtype::F32, {32, 32}}};
  auto v = check_one(t, {QuantScheme::Fp8Block, P + ".weight", {4096, 4096}, "FP8 block 128x128", kN, 4'096, 8, std::nullopt});
  CHECK(v.quant_modules[0].block == std::array<uint64_t, 2>{128, 128});
  CHECK(v.logical[0].block_scaled);
  CHECK(kind_of(v, "_scale_inv") == "block scale");
  CHECK(kN + 4'096 == 16'781'312u);
  CHECK(bpw(v) == Approx(8.002).margin(0.0005));
  // DeepSeek-V3 kv_a_proj_with_mqa: 576 rows -> 5 row blocks of 128 (the last one padded).
  auto edge = hfi::decode_storage(shard({{"a.weight", Dtype::F8_E4M3, {576, 7168}}, {"a.weight_scale_inv", Dtype::F32, {5, 56}}}));
  CHECK(only_module(edge).block == std::array<uint64_t, 2>{128, 128});
  CHECK(only_module(edge).problems.empty());
  // Without its scale, the F8 weight is still a quantized module, with the scale missing.
  auto bare = hfi::decode_storage(shard(without(t, "_scale_inv")));
  CHECK(only_module(bare).missing == std::vector<std::string>{"weight_scale"});
  CHECK(bare.logical[0].params == kN);
}

TEST_CASE("quant layout: FP8 per-channel (FBGEMM, 16,793,600 B) and per-tensor") {
  std::vector<T> t = {{P + ".weight", Dtype::F8_E4M3, {4096, 4096}}, {P + ".weight_scale", Dtype::F32, {4096, 1}}};
  auto v = check_one(t, {QuantScheme::Fp8Channel, P + ".weight", {4096, 4096}, "FP8 per-channel", kN, 16'384, 8, std::nullopt});
  CHECK(kN + 16'384 == 16'793'600u);
  CHECK(bpw(v) == Approx(8.008).margin(0.0005));
  // ModelOpt FP8: scalar weight_scale and input_scale, 4 bytes each.
  std::vector<T> pt = {{P + ".weight", Dtype::F8_E4M3, {4096, 4096}},
                       {P + ".weight_scale", Dtype::F32, {}},
                       {P + ".input_scale", Dtype::F32, {}}};
  auto tv = check_one(pt, {QuantScheme::Fp8Tensor, P + ".weight", {4096, 4096}, "FP8 per-tensor", kN, 8, 8, std::nullopt});
  CHECK(kind_of(tv, ".input_scale") == "input scale");
  // compressed-tensors FP8_BLOCK spells the block scale weight_scale.
  auto ctb = hfi::decode_storage(shard({{P + ".weight", Dtype::F8_E4M3, {4096, 4096}}, {P + ".weight_scale", Dtype::BF16, {32, 32}}}));
  CHECK(only_module(ctb).scheme == QuantScheme::Fp8Block);
}

TEST_CASE("quant layout: fused expert tensors keep their names (FP8 scale_inv rule, FBGEMM Llama-4)") {
  // DeepSeek's converter rule: the scale of any one-byte X is X_scale_inv.
  std::string X = "model.layers.1.mlp.experts.gate_up_proj";
  auto ds = hfi::decode_storage(shard({{X, Dtype::F8_E4M3, {8, 4096, 2048}}, {X + "_scale_inv", Dtype::F32, {8, 32, 16}}}));
  REQUIRE(ds.quant_modules.size() == 1);
  CHECK(ds.quant_modules[0].scheme == QuantScheme::Fp8Block);
  CHECK(ds.quant_modules[0].block == std::array<uint64_t, 2>{128, 128});
  CHECK(ds.logical[0].name == X);
  CHECK(hfi::owner_name(ds, ds.bookkeeping[0]) == X);
  // FBGEMM Llama-4 experts: gate_up_proj [E, H, 2I] + gate_up_proj_scale [E, 1, 2I]; down_proj
  // [E, I, H] + down_proj_scale [E, H, 1]: one scale per output column, per expert.
  std::string Y = "language_model.model.layers.0.feed_forward.experts.";
  auto fb = hfi::decode_storage(shard({{Y + "gate_up_proj", Dtype::F8_E4M3, {16, 5120, 16384}},
                                       {Y + "gate_up_proj_scale", Dtype::F32, {16, 1, 16384}},
                                       {Y + "down_proj", Dtype::F8_E4M3, {16, 8192, 5120}},
                                       {Y + "down_proj_scale", Dtype::F32, {16, 5120, 1}}}));
  REQUIRE(fb.quant_modules.size() == 2);
  for (const auto& m : fb.quant_modules) {
    CHECK(m.scheme == QuantScheme::Fp8Channel);
    CHECK(m.problems.empty());
  }
  CHECK(fb.logical.size() == 2);
  CHECK(fb.logical[0].params == 16ull * 5120 * 16384);
}

TEST_CASE("quant layout: MXFP4 (8,912,896 B, 4.25 bpw), fused name kept") {
  std::string X = "model.layers.0.mlp.experts.down_proj";
  std::vector<T> t = {{X + "_blocks", Dtype::U8, {4096, 128, 16}}, {X + "_scales", Dtype::U8, {4096, 128}}};
  auto v = check_one(t, {QuantScheme::Mxfp4, X, {4096, 4096}, "MXFP4", 8'388'608, 524'288, 4, 32});
  CHECK(kind_of(v, "_scales") == "mx exponent");
  CHECK(bpw(v) == Approx(4.25));
  auto bare = hfi::decode_storage(shard(without(t, "_scales")));
  CHECK(only_module(bare).missing == std::vector<std::string>{"_scales"});
}

TEST_CASE("quant layout: GPTQ int4 g128 with g_idx (8,732,672 B, 4.164 bpw)") {
  // qweight [in*4/32, out] I32, qzeros [in/128, out*4/32] I32, scales [in/128, out] F16, g_idx [in] I32
  std::vector<T> t = {{P + ".qweight", Dtype::I32, {512, 4096}},
                      {P + ".qzeros", Dtype::I32, {32, 512}},
                      {P + ".scales", Dtype::F16, {32, 4096}},
                      {P + ".g_idx", Dtype::I32, {4096}}};
  auto v = check_one(t, {QuantScheme::Gptq, P + ".weight", {4096, 4096}, "GPTQ int4 g128", 8'388'608, 344'064, 4, 128});
  CHECK(8'388'608 + 344'064 == 8'732'672);
  CHECK(bpw(v) == Approx(4.164).margin(0.0005));
  CHECK(kind_of(v, ".g_idx") == "g_idx");
  CHECK(kind_of(v, ".qzeros") == "zero point");
  // Without g_idx the shapes still say GPTQ (qweight keeps out as columns); bits come from qzeros.
  auto no_gidx = hfi::decode_storage(shard(without(t, ".g_idx")));
  CHECK(only_module(no_gidx).scheme == QuantScheme::Gptq);
  CHECK(only_module(no_gidx).missing == std::vector<std::string>{"g_idx"});
  CHECK(only_module(no_gidx).bits == 4u);
  CHECK(no_gidx.logical[0].shape == std::vector<uint64_t>{4096, 4096});
  auto no_zeros = hfi::decode_storage(shard(without(t, ".qzeros")));
  CHECK(only_module(no_zeros).missing == std::vector<std::string>{"qzeros"});
  // 3-bit: 32 codes in 3 words, qweight rows 4096 * 3 / 32 = 384.
  auto three = hfi::decode_storage(shard({{P + ".qweight", Dtype::I32, {384, 4096}},
                                          {P + ".qzeros", Dtype::I32, {32, 384}},
                                          {P + ".scales", Dtype::F16, {32, 4096}},
                                          {P + ".g_idx", Dtype::I32, {4096}}}));
  CHECK(only_module(three).bits == 3u);
  CHECK(three.logical[0].format == "GPTQ int3 g128");
  // Scales whose columns are not out: a problem.
  auto bad = hfi::decode_storage(shard({{P + ".qweight", Dtype::I32, {512, 4096}},
                                        {P + ".qzeros", Dtype::I32, {32, 512}},
                                        {P + ".scales", Dtype::F16, {32, 4000}},
                                        {P + ".g_idx", Dtype::I32, {4096}}}));
  CHECK(!only_module(bad).problems.empty());
}

TEST_CASE("quant layout: AutoGPTQ 0.4 bias buffers are bookkeeping unless the architecture expects a bias") {
  // AutoGPTQ up to 0.4 saved a zero F16 bias [out] beside every qweight (make_quant passed
  // bias=True); the real TheBloke/MythoMax-L2-13B-GPTQ file size counts it (fixtures/quantized/
  // gptq-int4-mythomax-l2-13b). Which bias is a buffer is decided by reconcile's expected_of.
  std::vector<T> t = {{P + ".qweight", Dtype::I32, {512, 4096}},
                      {P + ".qzeros", Dtype::I32, {32, 512}},
                      {P + ".scales", Dtype::F16, {32, 4096}},
                      {P + ".g_idx", Dtype::I32, {4096}},
                      {P + ".bias", Dtype::F16, {4096}},
                      {"model.norm.weight", Dtype::F16, {4096}}};
  auto v = hfi::decode_storage(shard(t));
  REQUIRE(v.logical.size() == 3);  // the weight, the bias, the norm
  REQUIRE(v.logical[1].name == P + ".bias");
  // Not expected by the architecture (a Llama linear): it becomes the module's bookkeeping.
  auto unexpected = v;
  std::vector<int64_t> expected_of = {0, -1, 1};
  CHECK(hfi::absorb_gptq_bias_buffers(unexpected, expected_of) == 1);
  CHECK(expected_of == std::vector<int64_t>{0, 1});  // still one entry per logical tensor
  REQUIRE(unexpected.logical.size() == 2);
  CHECK(unexpected.logical[1].name == "model.norm.weight");
  CHECK(only_module(unexpected).logical == 0);
  CHECK(only_module(unexpected).bookkeeping_bytes == 344'064 + 8'192);
  CHECK(unexpected.logical[0].bookkeeping_bytes == 344'064 + 8'192);
  CHECK(kind_of(unexpected, ".bias") == "bias buffer");
  // Expected (Qwen2's q/k/v carry a bias): it stays a parameter.
  auto expected = v;
  std::vector<int64_t> all_expected = {0, 1, 2};
  CHECK(hfi::absorb_gptq_bias_buffers(expected, all_expected) == 0);
  CHECK(all_expected.size() == 3);
  CHECK(expected.logical.size() == 3);
  CHECK(only_module(expected).bookkeeping_bytes == 344'064);
  // A bias whose length is not `out` is left alone.
  auto odd = hfi::decode_storage(shard({t[0], t[1], t[2], t[3], {P + ".bias", Dtype::F16, {1024}}}));
  std::vector<int64_t> odd_expected = {0, -1};
  CHECK(hfi::absorb_gptq_bias_buffers(odd, odd_expected) == 0);
}

TEST_CASE("quant layout: GPTQ-Marlin legacy checkpoint (B + s)") {
  // B [in/16, 2*out] I32 = 8,388,608 B; s [in/128, out] F16 = 262,144 B: 4 + 16/128 = 4.125 bpw
  std::vector<T> t = {{P + ".B", Dtype::I32, {256, 8192}}, {P + ".s", Dtype::F16, {32, 4096}}};
  auto v = check_one(t, {QuantScheme::GptqMarlin, P + ".weight", {4096, 4096}, "GPTQ Marlin int4 g128", 8'388'608, 262'144, 4, 128});
  CHECK(bpw(v) == Approx(4.125));
  CHECK(only_module(hfi::decode_storage(shard(without(t, ".s")))).missing == std::vector<std::string>{"s"});
}

TEST_CASE("quant layout: AWQ GEMM int4 g128 (8,716,288 B, 4.156 bpw) and GEMV") {
  std::vector<T> t = {{P + ".qweight", Dtype::I32, {4096, 512}},
                      {P + ".qzeros", Dtype::I32, {32, 512}},
                      {P + ".scales", Dtype::F16, {32, 4096}}};
  auto v = check_one(t, {QuantScheme::AwqGemm, P + ".weight", {4096, 4096}, "AWQ int4 g128", 8'388'608, 327'680, 4, 128});
  CHECK(8'388'608 + 327'680 == 8'716'288);
  CHECK(bpw(v) == Approx(4.156).margin(0.0005));
  auto no_zeros = hfi::decode_storage(shard(without(t, ".qzeros")));
  CHECK(only_module(no_zeros).scheme == QuantScheme::AwqGemm);
  CHECK(only_module(no_zeros).missing == std::vector<std::string>{"qzeros"});
  // GEMV: qweight [out, in/8], qzeros [out, Wz], scales [out, 8 Wz], Wz = ceil(32 groups / 8) = 4.
  std::vector<T> gemv = {{P + ".qweight", Dtype::I32, {4096, 512}},
                         {P + ".qzeros", Dtype::I32, {4096, 4}},
                         {P + ".scales", Dtype::F16, {4096, 32}}};
  check_one(gemv, {QuantScheme::AwqGemv, P + ".weight", {4096, 4096}, "AWQ GEMV int4 g128", 8'388'608, 327'680, 4, 128});
  // falcon/mpt/bloom AWQ checkpoints carry an activation-smoothing vector: bookkeeping, not a parameter.
  auto with_act = t;
  with_act.push_back({"model.layers.0.mlp.act.scales", Dtype::F16, {11008}});
  auto act = hfi::decode_storage(shard(with_act));
  CHECK(act.logical.size() == 1);
  CHECK(kind_of(act, "act.scales") == "scale");
  CHECK(hfi::owner_name(act, act.bookkeeping.back()) == "model.layers.0.mlp.act");
  // AWQ needs in divisible by the group (G-10): 4000 inputs in 32 groups of 125 are fine; in 31
  // groups they need a group of 130 (ceil(4000 / 31)), which does not divide 4000.
  auto odd = hfi::decode_storage(shard({{P + ".qweight", Dtype::I32, {4000, 512}},
                                        {P + ".qzeros", Dtype::I32, {32, 512}},
                                        {P + ".scales", Dtype::F16, {32, 4096}}}));
  CHECK(only_module(odd).group_size == 125u);
  auto padded = hfi::decode_storage(shard({{P + ".qweight", Dtype::I32, {4000, 512}},
                                           {P + ".qzeros", Dtype::I32, {31, 512}},
                                           {P + ".scales", Dtype::F16, {31, 4096}}}));
  CHECK(only_module(padded).group_size == 130u);
  CHECK(only_module(padded).problems.size() == 1);
}

TEST_CASE("quant layout: bitsandbytes NF4 with and without double quant") {
  // weight U8 [n/2, 1]; absmax per 64 values: U8 [262,144] under double quant, else F32;
  // quant_map F32 [16]; nested_absmax F32 [ceil(262,144/256)] = [1,024]; nested_quant_map F32 [256];
  // quant_state: the JSON, about 164 bytes with the nested keys, 102 without (§12.2: "about").
  std::vector<T> dq = {{P + ".weight", Dtype::U8, {kN / 2, 1}},
                       {P + ".weight.absmax", Dtype::U8, {262'144}},
                       {P + ".weight.quant_map", Dtype::F32, {16}},
                       {P + ".weight.nested_absmax", Dtype::F32, {1'024}},
                       {P + ".weight.nested_quant_map", Dtype::F32, {256}},
                       {P + ".weight.quant_state.bitsandbytes__nf4", Dtype::U8, {164}}};
  auto v = check_one(dq, {QuantScheme::Bnb4, P + ".weight", {kN}, "NF4", 8'388'608, 267'492, 4, 64});
  CHECK(std::abs(static_cast<double>(8'388'608 + 267'492) - 8'656'100.0) < 200);
  CHECK(bpw(v) == Approx(4.127).margin(0.001));
  CHECK(kind_of(v, ".weight.absmax") == "absmax");
  CHECK(kind_of(v, ".nested_quant_map") == "nested quant map");
  CHECK(kind_of(v, "bitsandbytes__nf4") == "quant state");
  std::vector<T> plain = {{P + ".weight", Dtype::U8, {kN / 2, 1}},
                          {P + ".weight.absmax", Dtype::F32, {262'144}},
                          {P + ".weight.quant_map", Dtype::F32, {16}},
                          {P + ".weight.quant_state.bitsandbytes__nf4", Dtype::U8, {102}}};
  auto p = check_one(plain, {QuantScheme::Bnb4, P + ".weight", {kN}, "NF4", 8'388'608, 1'048'742, 4, 64});
  CHECK(std::abs(static_cast<double>(8'388'608 + 1'048'742) - 9'437'350.0) < 200);
  CHECK(bpw(p) == Approx(4.5).margin(0.001));
  // A bias [out] gives the [out, in] split that the header alone does not.
  auto biased = plain;
  biased.push_back({P + ".bias", Dtype::BF16, {4096}});
  auto b = hfi::decode_storage(shard(biased));
  CHECK(b.logical[0].shape == std::vector<uint64_t>{4096, 4096});
  CHECK(b.logical.size() == 2);  // the bias stays a plain tensor
  // Double-quant absmax (U8) without the nested tensors; and a dropped quant_state.
  auto no_nested = hfi::decode_storage(shard(without(without(dq, "nested_absmax"), "nested_quant_map")));
  CHECK(only_module(no_nested).missing == std::vector<std::string>{"weight.nested_absmax", "weight.nested_quant_map"});
  auto no_state = hfi::decode_storage(shard(without(plain, "bitsandbytes__nf4")));
  CHECK(only_module(no_state).missing == std::vector<std::string>{"weight.quant_state"});
  CHECK(no_state.logical[0].format == "bnb 4-bit");
  // quant_storage bf16: the same bytes in a BF16 [n/4, 1] tensor.
  auto bf16 = plain;
  bf16[0] = {P + ".weight", Dtype::BF16, {kN / 4, 1}};
  CHECK(hfi::decode_storage(shard(bf16)).logical[0].params == kN);
}

TEST_CASE("quant layout: bitsandbytes LLM.int8 (16,793,601 B, 8.008 bpw)") {
  std::vector<T> t = {{P + ".weight", Dtype::I8, {4096, 4096}}, {P + ".SCB", Dtype::F32, {4096}}, {P + ".weight_format", Dtype::U8, {}}};
  auto v = check_one(t, {QuantScheme::Bnb8, P + ".weight", {4096, 4096}, "INT8 (LLM.int8)", kN, 16'385, 8, std::nullopt});
  CHECK(kN + 16'385 == 16'793'601u);
  CHECK(bpw(v) == Approx(8.008).margin(0.0005));
  CHECK(only_module(hfi::decode_storage(shard(without(t, ".weight_format")))).missing == std::vector<std::string>{"weight_format"});
}

TEST_CASE("quant layout: compressed-tensors W4A16 g128 symmetric (8,650,768 B, 4.125 bpw)") {
  // weight_packed I32 [out, in/8], weight_scale BF16 [out, in/128], weight_shape I64 [2]
  std::vector<T> t = {{P + ".weight_packed", Dtype::I32, {4096, 512}},
                      {P + ".weight_scale", Dtype::BF16, {4096, 32}},
                      {P + ".weight_shape", Dtype::I64, {2}}};
  auto v = check_one(t, {QuantScheme::CtPacked, P + ".weight", {4096, 4096}, "CT int4 g128", 8'388'608, 262'160, 4, 128});
  CHECK(8'388'608 + 262'160 == 8'650'768);
  CHECK(bpw(v) == Approx(4.125).margin(0.0005));
  CHECK(only_module(hfi::decode_storage(shard(without(t, ".weight_shape")))).missing == std::vector<std::string>{"weight_shape"});
  // Asymmetric: zero points packed along out, [out*4/32, groups]: the bits come from them.
  auto asym = t;
  asym.push_back({P + ".weight_zero_point", Dtype::I32, {512, 32}});
  auto a = hfi::decode_storage(shard(asym));
  CHECK(only_module(a).bits == 4u);
  CHECK(only_module(a).problems.empty());
  // int8 per channel (W8A16): packed [out, in/4], scale [out, 1].
  auto w8 = hfi::decode_storage(shard({{P + ".weight_packed", Dtype::I32, {4096, 1024}},
                                       {P + ".weight_scale", Dtype::BF16, {4096, 1}},
                                       {P + ".weight_shape", Dtype::I64, {2}}}));
  CHECK(only_module(w8).bits == 8u);
  CHECK(w8.logical[0].shape == std::vector<uint64_t>{4096, 4096});
  CHECK(w8.logical[0].format == "CT int8 per-channel");
}

TEST_CASE("quant layout: NVFP4, compressed-tensors and ModelOpt spellings (9,437,192 B, 4.5 bpw)") {
  // packed U8 [out, in/2] = 8,388,608; scale F8_E4M3 [out, in/16] = 1,048,576; two F32 globals
  std::vector<T> ct = {{P + ".weight_packed", Dtype::U8, {4096, 2048}},
                       {P + ".weight_scale", Dtype::F8_E4M3, {4096, 256}},
                       {P + ".weight_global_scale", Dtype::F32, {1}},
                       {P + ".input_global_scale", Dtype::F32, {1}}};
  auto c = check_one(ct, {QuantScheme::CtNvfp4, P + ".weight", {4096, 4096}, "NVFP4", 8'388'608, 1'048'584, 4, 16});
  CHECK(8'388'608 + 1'048'584 == 9'437'192);
  CHECK(bpw(c) == Approx(4.5).margin(0.0005));
  CHECK(kind_of(c, ".weight_global_scale") == "global scale");
  CHECK(only_module(hfi::decode_storage(shard(without(ct, ".weight_global_scale")))).missing ==
        std::vector<std::string>{"weight_global_scale"});
  std::vector<T> mo = {{P + ".weight", Dtype::U8, {4096, 2048}},
                       {P + ".weight_scale", Dtype::F8_E4M3, {4096, 256}},
                       {P + ".weight_scale_2", Dtype::F32, {}},
                       {P + ".input_scale", Dtype::F32, {}}};
  auto m = check_one(mo, {QuantScheme::ModeloptNvfp4, P + ".weight", {4096, 4096}, "NVFP4", 8'388'608, 1'048'584, 4, 16});
  CHECK(bpw(m) == Approx(4.5).margin(0.0005));
  CHECK(only_module(hfi::decode_storage(shard(without(mo, ".weight_scale_2")))).missing == std::vector<std::string>{"weight_scale_2"});
}

TEST_CASE("quant layout: ModelOpt NVFP4 stacked experts (vLLM-fused names)") {
  // E = 8 experts of [2048 out, 4096 in]: U8 [8, 2048, 2048], F8 scales [8, 2048, 256], globals per expert.
  std::string X = "model.layers.0.mlp.experts.gate_up_proj";
  auto v = hfi::decode_storage(shard({{X, Dtype::U8, {8, 2048, 2048}},
                                      {X + "_weight_scale", Dtype::F8_E4M3, {8, 2048, 256}},
                                      {X + "_weight_scale_2", Dtype::F32, {8}},
                                      {X + "_input_scale", Dtype::F32, {8}}}));
  const auto& m = only_module(v);
  CHECK(m.scheme == QuantScheme::ModeloptNvfp4);
  CHECK(m.problems.empty());
  CHECK(m.missing.empty());
  CHECK(m.group_size == 16u);
  CHECK(v.logical.size() == 1);
  CHECK(v.logical[0].name == X);
  CHECK(v.logical[0].shape == std::vector<uint64_t>{8, 2048, 4096});
  CHECK(v.bookkeeping.size() == 3);
  CHECK(v.orphan_quant_tensors.empty());
}

TEST_CASE("quant layout: ModelOpt INT4-AWQ g128") {
  // weight U8 [out/2, in] = 8,388,608; weight_scale BF16 [out, in/128] = 262,144; pre_quant_scale BF16 [in] = 8,192
  std::vector<T> t = {{P + ".weight", Dtype::U8, {2048, 4096}},
                      {P + ".weight_scale", Dtype::BF16, {4096, 32}},
                      {P + ".pre_quant_scale", Dtype::BF16, {4096}}};
  auto v = check_one(t, {QuantScheme::ModeloptInt4Awq, P + ".weight", {4096, 4096}, "ModelOpt INT4-AWQ g128", 8'388'608, 270'336, 4, 128});
  CHECK(bpw(v) == Approx(4 + 16.0 / 128).margin(0.005));  // 4 + 16/g, pre_quant_scale negligible
  CHECK(kind_of(v, ".pre_quant_scale") == "pre-quant scale");
  CHECK(only_module(hfi::decode_storage(shard(without(t, ".pre_quant_scale")))).missing == std::vector<std::string>{"pre_quant_scale"});
}

TEST_CASE("quant layout: HQQ 4-bit g64 F16 (9,437,184 B + metadata, 4.5 bpw)") {
  // axis 1: W_q U8 [n/64/2, 64], scale and zero F16 [n/64, 1]; metadata scalars and strings
  std::vector<T> t = {{P + ".W_q", Dtype::U8, {131'072, 64}},
                      {P + ".scale", Dtype::F16, {262'144, 1}},
                      {P + ".zero", Dtype::F16, {262'144, 1}},
                      {P + ".shape", Dtype::I64, {2}},
                      {P + ".nbits", Dtype::I32, {}},
                      {P + ".group_size", Dtype::I32, {}},
                      {P + ".axis", Dtype::I32, {}},
                      {P + ".packing", Dtype::U8, {7}}};
  auto v = check_one(t, {QuantScheme::Hqq, P + ".weight", {kN}, "HQQ int4 g64", 8'388'608, 1'048'576 + 16 + 4 + 4 + 4 + 7, 4, 64});
  CHECK(8'388'608 + 1'048'576 == 9'437'184);
  CHECK(bpw(v) == Approx(4.5).margin(0.001));
  CHECK(only_module(hfi::decode_storage(shard(without(t, ".zero")))).missing == std::vector<std::string>{"zero"});
}

TEST_CASE("quant layout: EETQ int8, stored transposed") {
  // weight I8 [in, out]; weight_scales F16 [out]: 8 + 16/4096 = 8.0039 bpw
  std::vector<T> t = {{P + ".weight", Dtype::I8, {4096, 4096}}, {P + ".weight_scales", Dtype::F16, {4096}}};
  auto v = check_one(t, {QuantScheme::Eetq, P + ".weight", {4096, 4096}, "EETQ int8", kN, 8'192, 8, std::nullopt});
  CHECK(bpw(v) == Approx(8.0039).margin(0.0001));
  auto wide = hfi::decode_storage(shard({{P + ".weight", Dtype::I8, {1024, 4096}}, {P + ".weight_scales", Dtype::F16, {4096}}}));
  CHECK(wide.logical[0].shape == std::vector<uint64_t>{4096, 1024});
}

TEST_CASE("quant layout: optimum-quanto int8 and int4 g128") {
  std::vector<T> q8 = {{P + ".weight._data", Dtype::I8, {4096, 4096}},
                       {P + ".weight._scale", Dtype::BF16, {4096, 1}},
                       {P + ".input_scale", Dtype::BF16, {}},
                       {P + ".output_scale", Dtype::BF16, {}}};
  check_one(q8, {QuantScheme::Quanto, P + ".weight", {4096, 4096}, "quanto int8", kN, 8'196, 8, std::nullopt});
  // int4 g128: _data._data U8 [(n/128)/2, 128], _scale and _shift BF16 [n/128, 1]: 4 + 32/128 = 4.25 bpw
  std::vector<T> q4 = {{P + ".weight._data._data", Dtype::U8, {65'536, 128}},
                       {P + ".weight._scale", Dtype::BF16, {131'072, 1}},
                       {P + ".weight._shift", Dtype::BF16, {131'072, 1}}};
  auto v = check_one(q4, {QuantScheme::Quanto, P + ".weight", {kN}, "quanto int4 g128", 8'388'608, 524'288, 4, 128});
  CHECK(bpw(v) == Approx(4.25));
  CHECK(only_module(hfi::decode_storage(shard(without(q4, "._shift")))).missing == std::vector<std::string>{"weight._shift"});
}

TEST_CASE("quant layout: orphans, plain tensors and look-alike names") {
  auto v = hfi::decode_storage(shard({{"a.qzeros", Dtype::I32, {32, 512}},
                                      {"a.scales", Dtype::F16, {32, 4096}},
                                      {"b.weight_scale_inv", Dtype::F32, {32, 32}},
                                      {"c.weight", Dtype::BF16, {64, 64}},
                                      {"c.per_dim_scale", Dtype::F32, {64}},
                                      {"d.layer_scale", Dtype::F32, {64}},
                                      {"e.B", Dtype::F32, {16, 4}},
                                      {"e.s", Dtype::F32, {4}}}));
  CHECK(v.quant_modules.empty());
  CHECK(v.bookkeeping.empty());
  CHECK(v.orphan_quant_tensors == std::vector<std::string>{"a.qzeros", "b.weight_scale_inv"});
  REQUIRE(v.logical.size() == 8);  // everything stays visible
  uint64_t params = 0;
  for (const auto& l : v.logical) params += l.params;
  CHECK(params == 32 * 512 + 32 * 4096 + 32 * 32 + 64 * 64 + 64 + 64 + 64 + 4);
  // Plain float checkpoints come out exactly as stored.
  auto f = hfi::decode_storage(shard({{"w.weight", Dtype::BF16, {8, 4}}, {"w.bias", Dtype::BF16, {8}}}));
  CHECK(f.logical.size() == 2);
  CHECK(f.logical[0].format == "BF16");
  CHECK(f.logical[0].scheme == QuantScheme::None);
}

TEST_CASE("quant layout: modules are listed in the stored order of their weights") {
  // a's scale comes first, but b's weight is stored before a's.
  auto v = hfi::decode_storage(shard({{"a.weight_scale_inv", Dtype::F32, {1, 1}},
                                      {"b.weight", Dtype::F8_E4M3, {128, 128}},
                                      {"b.weight_scale_inv", Dtype::F32, {1, 1}},
                                      {"c.weight", Dtype::F8_E4M3, {128, 128}},
                                      {"c.weight_scale_inv", Dtype::F32, {1, 1}},
                                      {"a.weight", Dtype::F8_E4M3, {128, 128}}}));
  REQUIRE(v.quant_modules.size() == 3);
  CHECK(v.quant_modules[0].module == "b");
  CHECK(v.quant_modules[1].module == "c");
  CHECK(v.quant_modules[2].module == "a");
  for (size_t k = 0; k < 3; ++k) CHECK(v.logical[v.quant_modules[k].logical].name == std::string(v.quant_modules[k].module) + ".weight");
  CHECK(hfi::owner_name(v, v.bookkeeping[0]) == "a.weight");
}

TEST_CASE("quant layout: logical weights come out in stored order around plain tensors and failed candidates") {
  using Placed = std::vector<std::pair<std::string, size_t>>;  // module, its weight's place in logical
  auto names = [](const hfi::StorageView& v) {
    std::vector<std::string> out;
    for (const auto& l : v.logical) out.emplace_back(l.name);
    return out;
  };
  auto modules = [](const hfi::StorageView& v) {
    Placed out;
    for (const auto& m : v.quant_modules) out.emplace_back(m.module, m.logical);
    return out;
  };
  auto owners = [](const hfi::StorageView& v) {
    std::vector<std::string> out;
    for (const auto& b : v.bookkeeping) out.emplace_back(hfi::owner_name(v, b));
    return out;
  };
  // Candidates in stored order: a, o (a scale without its weight: not a module), b.
  auto v = hfi::decode_storage(shard({{"emb.weight", Dtype::BF16, {16, 8}},
                                      {"a.weight", Dtype::F8_E4M3, {128, 128}},
                                      {"a.weight_scale_inv", Dtype::F32, {1, 1}},
                                      {"n.weight", Dtype::BF16, {8}},
                                      {"o.weight_scale_inv", Dtype::F32, {1, 1}},
                                      {"b.weight", Dtype::F8_E4M3, {128, 128}},
                                      {"b.weight_scale_inv", Dtype::F32, {1, 1}},
                                      {"z.bias", Dtype::BF16, {4}}}));
  CHECK(names(v) == std::vector<std::string>{"emb.weight", "a.weight", "n.weight", "o.weight_scale_inv", "b.weight", "z.bias"});
  CHECK(modules(v) == Placed{{"a", 1}, {"b", 4}});
  CHECK(owners(v) == std::vector<std::string>{"a.weight", "b.weight"});
  CHECK(v.orphan_quant_tensors == std::vector<std::string>{"o.weight_scale_inv"});
  CHECK(v.logical[2].shape == std::vector<uint64_t>{8});
  CHECK(v.logical[4].format == "FP8 block 128x128");

  // A module seen first (by its scale) whose weight is stored last, with plain tensors between.
  auto w = hfi::decode_storage(shard({{"x.weight", Dtype::BF16, {4, 4}},
                                      {"a.weight_scale_inv", Dtype::F32, {1, 1}},
                                      {"b.weight", Dtype::F8_E4M3, {128, 128}},
                                      {"b.weight_scale_inv", Dtype::F32, {1, 1}},
                                      {"y.weight", Dtype::BF16, {4}},
                                      {"a.weight", Dtype::F8_E4M3, {128, 128}}}));
  CHECK(names(w) == std::vector<std::string>{"x.weight", "b.weight", "y.weight", "a.weight"});
  CHECK(modules(w) == Placed{{"b", 1}, {"a", 3}});
  CHECK(owners(w) == std::vector<std::string>{"a.weight", "b.weight"});

  // Several scales ahead of their weights, whose order then runs backwards: candidates a, b, c, d
  // are placed d, c, b, a, with plain tensors and a module in order (e) among them.
  auto r = hfi::decode_storage(shard({{"a.weight_scale_inv", Dtype::F32, {1, 1}},
                                      {"b.weight_scale_inv", Dtype::F32, {1, 1}},
                                      {"c.weight_scale_inv", Dtype::F32, {1, 1}},
                                      {"d.weight", Dtype::F8_E4M3, {128, 128}},
                                      {"d.weight_scale_inv", Dtype::F32, {1, 1}},
                                      {"p.weight", Dtype::BF16, {4}},
                                      {"c.weight", Dtype::F8_E4M3, {128, 128}},
                                      {"e.weight", Dtype::F8_E4M3, {128, 128}},
                                      {"e.weight_scale_inv", Dtype::F32, {1, 1}},
                                      {"b.weight", Dtype::F8_E4M3, {128, 128}},
                                      {"q.weight", Dtype::BF16, {4}},
                                      {"a.weight", Dtype::F8_E4M3, {128, 128}}}));
  CHECK(names(r) == std::vector<std::string>{"d.weight", "p.weight", "c.weight", "e.weight", "b.weight", "q.weight", "a.weight"});
  CHECK(modules(r) == Placed{{"d", 0}, {"c", 2}, {"e", 3}, {"b", 4}, {"a", 6}});
  CHECK(owners(r) == std::vector<std::string>{"a.weight", "b.weight", "c.weight", "d.weight", "e.weight"});
}

TEST_CASE("quant layout: KV-cache scales are bookkeeping of their attention module") {
  auto v = hfi::decode_storage(shard({{"l.self_attn.k_scale", Dtype::F32, {}},
                                      {"l.self_attn.v_scale", Dtype::F32, {}},
                                      {"l.self_attn.k_proj.weight", Dtype::F8_E4M3, {512, 4096}},
                                      {"l.self_attn.k_proj.weight_scale", Dtype::F32, {}}}));
  REQUIRE(v.quant_modules.size() == 1);
  REQUIRE(v.bookkeeping.size() == 3);
  CHECK(v.bookkeeping[0].kind == "kv scale");
  CHECK(hfi::owner_name(v, v.bookkeeping[0]) == "l.self_attn");
  CHECK(v.logical.size() == 1);
  CHECK(v.orphan_quant_tensors.empty());
}

TEST_CASE("quant layout: DeepSeek-V3 and gpt-oss-20b fixtures decode without problems") {
  auto load = [](const std::string& repo) {
    hfi::LocalSource source(hfi::testing::materialized(repo));
    auto snap = hfi::load_snapshot(source);
    REQUIRE(snap.ok());
    return hfi::decode_storage(snap->shards);
  };
  auto ds = load("deepseek-ai/DeepSeek-V3");
  // Every F8 weight has its F32 128 x 128 block scale: 45,808 quantized linears, main model and MTP
  // (the fixture's weight_scale_inv count).
  CHECK(ds.quant_modules.size() == 45'808);
  CHECK(ds.bookkeeping.size() == 45'808);
  CHECK(ds.orphan_quant_tensors.empty());
  size_t clean = 0;
  for (const auto& m : ds.quant_modules)
    clean += m.scheme == QuantScheme::Fp8Block && m.block == std::array<uint64_t, 2>{128, 128} && m.problems.empty() &&
             m.missing.empty() && m.bits == 8u;
  CHECK(clean == ds.quant_modules.size());
  auto oss = load("openai/gpt-oss-20b");
  CHECK(oss.quant_modules.size() == 48);  // 24 layers x (gate_up_proj, down_proj)
  size_t mx = 0;
  for (const auto& m : oss.quant_modules) mx += m.scheme == QuantScheme::Mxfp4 && m.problems.empty() && m.missing.empty();
  CHECK(mx == 48);
  CHECK(oss.orphan_quant_tensors.empty());
}

TEST_CASE("quant layout: a decoded view keeps the names and formats it views after the headers and the decode are gone") {
  // GPTQ makes its logical name ("P.weight" is stored nowhere); FP8 and a plain tensor view the
  // stored names. The headers are a temporary here, and the view is copied before the original goes:
  // under ASan a name left pointing into either would fail.
  std::optional<hfi::StorageView> copy;
  {
    hfi::StorageView v = hfi::decode_storage(shard({{P + ".qweight", Dtype::I32, {512, 4096}},
                                                    {P + ".qzeros", Dtype::I32, {32, 512}},
                                                    {P + ".scales", Dtype::F16, {32, 4096}},
                                                    {"model.layers.0.mlp.up_proj.weight", Dtype::F8_E4M3, {256, 128}},
                                                    {"model.layers.0.mlp.up_proj.weight_scale_inv", Dtype::F32, {2, 1}},
                                                    {"model.norm.weight", Dtype::BF16, {4096}}}));
    copy = v;
  }
  std::vector<std::string> logical, formats, modules, bookkeeping;
  for (const auto& l : copy->logical) logical.emplace_back(l.name);
  for (const auto& l : copy->logical) formats.emplace_back(l.format);
  for (const auto& m : copy->quant_modules) modules.emplace_back(m.module);
  for (const auto& b : copy->bookkeeping) bookkeeping.emplace_back(b.name);
  CHECK(logical == std::vector<std::string>{P + ".weight", "model.layers.0.mlp.up_proj.weight", "model.norm.weight"});
  // The quantized weights' formats are texts the view keeps, the plain one a dtype name. GPTQ: 32 scale
  // rows over in = 512 * 32 / 4 = 4096 are groups of 128; FP8: a [2, 1] scale over [256, 128] is 128 x 128 blocks.
  CHECK(formats == std::vector<std::string>{"GPTQ int4 g128", "FP8 block 128x128", "BF16"});
  CHECK(modules == std::vector<std::string>{P, "model.layers.0.mlp.up_proj"});
  CHECK(bookkeeping == std::vector<std::string>{P + ".qzeros", P + ".scales", "model.layers.0.mlp.up_proj.weight_scale_inv"});
}
