// GGUF: the header parser on hand-written files (every version, every hostile count), the
// fixtures rebuilt from published llama_model_loader dumps against the figures those dumps print,
// the variants of a repository, split sets, and a tiny MoE whose expected counts are worked out
// here by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "analysis/gguf_variants.hpp"
#include "formats/gguf_header.hpp"
#include "support/bytes.hpp"
#include "support/fixture_repo.hpp"
#include "support/gguf_writer.hpp"
#include "hub/test_hub.hpp"
#include "support/hub_runs.hpp"
#include "support/inspect.hpp"
#include "support/run_cli.hpp"

namespace fs = std::filesystem;
using hfi::GgufHeader;
using hfi::GgufNeedMore;
using hfi::testing::GgufWriter;
using hfi::testing::bytes_of;

namespace {

// The parse of a whole file held in `bytes` (its size is the file's size, plus `data` bytes of
// tensor data that are not held).
hfi::Result<hfi::GgufParse> parse_whole(const std::string& bytes, uint64_t data = 0) {
  return hfi::parse_gguf_header(bytes_of(bytes), "t.gguf", bytes.size() + data);
}

GgufWriter small_llama(uint32_t version = 3) {
  GgufWriter w(version);
  w.add_string("general.architecture", "llama");
  w.add_u32("llama.block_count", 1);
  w.add_u32("llama.context_length", 2048);
  w.add_string_array("tokenizer.ggml.tokens", 1000);
  w.add_number_array("tokenizer.ggml.scores", "f32", 1000);
  w.add_tensor("token_embd.weight", {64, 1000}, "q8_0");
  w.add_tensor("blk.0.attn_norm.weight", {64}, "f32");
  return w;
}

std::string error_field(const hfi::Result<hfi::GgufParse>& r) {
  REQUIRE_FALSE(r.ok());
  return r.error().field;
}

void write_file(const fs::path& p, const std::string& bytes, uint64_t hole = 0) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
  out.close();
  fs::resize_file(p, bytes.size() + hole);
}

}  // namespace

TEST_CASE("GGUF headers of versions 1, 2 and 3 parse to the same tensors", "[gguf]") {
  for (uint32_t version : {1u, 2u, 3u}) {
    INFO("version " << version);
    uint64_t data = 0;
    const std::string header = small_llama(version).header(data);
    // q8_0: 34 bytes per 32 values; 64 x 1000 values = 2,000 blocks = 68,000 bytes, then the norm
    // (256 bytes of f32) at the next 32-byte boundary (68,000 is one).
    REQUIRE(data == 68'000 + 256);
    auto parsed = parse_whole(header, data);
    REQUIRE(parsed.ok());
    const auto& h = std::get<GgufHeader>(*parsed);
    CHECK(h.version == version);
    CHECK(h.tensors.size() == 2);
    CHECK(h.elements == 64'000 + 64);
    CHECK(h.tensor_bytes == 68'256);
    CHECK(h.data_offset == header.size());
    CHECK(h.data_offset % 32 == 0);
    CHECK(h.string("general.architecture") == "llama");
    CHECK(h.unsigned_value("llama.context_length") == 2048u);
    const hfi::GgufValue* tokens = h.find("tokenizer.ggml.tokens");
    REQUIRE(tokens);
    CHECK(tokens->count == 1000);
    CHECK(tokens->elided);  // walked, not kept
    CHECK(h.tensors[0].dims == std::vector<uint64_t>{64, 1000});
    CHECK(h.tensors[0].type.name == "Q8_0");
  }
}

TEST_CASE("a GGUF prefix that ends inside the header asks for more, never past what it needs", "[gguf]") {
  uint64_t data = 0;
  const std::string header = small_llama().header(data);
  const uint64_t size = header.size() + data;
  for (size_t cut : {size_t{0}, size_t{3}, size_t{24}, header.size() / 2, header.size() - 40}) {  // the last 40: padding and the last offset
    INFO("prefix of " << cut);
    auto parsed = hfi::parse_gguf_header(bytes_of(header.substr(0, cut)), "t.gguf", size);
    REQUIRE(parsed.ok());
    const auto* more = std::get_if<GgufNeedMore>(&*parsed);
    REQUIRE(more);
    CHECK(more->bytes > cut);
    CHECK(more->bytes <= header.size());
  }
}

TEST_CASE("hostile GGUF headers end with the field named", "[gguf]") {
  uint64_t data = 0;
  const std::string good = small_llama().header(data);
  auto with_u64_at = [&](size_t at, uint64_t v) {
    std::string s = good;
    std::string le;
    GgufWriter::put_u64(le, v);
    s.replace(at, 8, le);
    return s;
  };
  SECTION("magic and version") {
    CHECK(error_field(parse_whole("GGML" + good.substr(4), data)) == "magic");
    std::string v4 = good;
    v4[4] = 4;
    CHECK(error_field(parse_whole(v4, data)) == "version");
    std::string big_endian = good;
    big_endian.replace(4, 4, std::string("\0\0\0\3", 4));
    auto r = parse_whole(big_endian, data);
    CHECK(error_field(r) == "version");
    CHECK(r.error().message.find("big-endian") != std::string::npos);
  }
  SECTION("counts past what the file can hold or a header may") {
    CHECK(error_field(parse_whole(with_u64_at(8, uint64_t{1} << 40), data)) == "tensor_count");
    CHECK(error_field(parse_whole(with_u64_at(16, uint64_t{1} << 40), data)) == "metadata_kv_count");
  }
  SECTION("a string or array longer than the rest of the file") {
    // The first key's length, at byte 24.
    CHECK(error_field(parse_whole(with_u64_at(24, uint64_t{1} << 50), data)) == "metadata key 0");
    GgufWriter w;
    w.add_number_array("tokenizer.ggml.scores", "f32", 4);
    uint64_t d = 0;
    std::string s = w.header(d);
    const size_t count_at = s.find("scores") + 6 + 4 + 4;  // after the key: value type, element type
    s.replace(count_at, 8, [] { std::string le; GgufWriter::put_u64(le, uint64_t{1} << 61); return le; }());
    CHECK(error_field(parse_whole(s)) == "tokenizer.ggml.scores");
  }
  SECTION("a header past the 256 MiB cap, in a file large enough to hold it") {
    std::string s = "GGUF";
    GgufWriter::put_u32(s, 3);
    GgufWriter::put_u64(s, 0);
    GgufWriter::put_u64(s, 1);
    GgufWriter::put_u64(s, 300u << 20);  // a key said to be 300 MiB long
    auto r = hfi::parse_gguf_header(bytes_of(s), "t.gguf", uint64_t{1} << 34);
    CHECK(error_field(r) == "metadata key 0");
    CHECK(r.error().message.find("256 MiB") != std::string::npos);
  }
  SECTION("tensor infos that lie") {
    auto tensor_case = [](const std::vector<uint64_t>& dims, const std::string& type, uint32_t n_dims_override = 0, uint32_t type_override = 0) {
      GgufWriter w;
      w.add_tensor("x.weight", dims, type);
      uint64_t d = 0;
      std::string s = w.header(d);
      const size_t name_end = s.find("x.weight") + 8;
      if (n_dims_override) s.replace(name_end, 4, [&] { std::string le; GgufWriter::put_u32(le, n_dims_override); return le; }());
      if (type_override) s.replace(name_end + 4 + 8 * dims.size(), 4, [&] { std::string le; GgufWriter::put_u32(le, type_override); return le; }());
      return parse_whole(s, d);
    };
    CHECK(error_field(tensor_case({32, 2}, "f32", 5)) == "tensor x.weight n_dims");
    CHECK(error_field(tensor_case({32, 2}, "f32", 0, 99)) == "tensor x.weight type");
    CHECK(error_field(tensor_case({32, 2}, "f32", 0, 4)) == "tensor x.weight type");  // Q4_2, retired
    CHECK(error_field(tensor_case({48, 2}, "q8_0")) == "tensor x.weight dims");       // 48 values: not whole blocks of 32
    CHECK(error_field(tensor_case({uint64_t{1} << 40, uint64_t{1} << 30}, "f32")) == "tensor x.weight dims");
  }
  SECTION("tensor data outside the file, misaligned or overlapping") {
    CHECK(error_field(parse_whole(good, data - 1)) == "tensor blk.0.attn_norm.weight offset");  // a download cut short
    GgufWriter w;
    w.add_tensor("a.weight", {8}, "f32");
    w.add_tensor("b.weight", {8}, "f32");
    uint64_t d = 0;
    std::string s = w.header(d);
    const size_t b_offset = s.find("b.weight") + 8 + 4 + 8 + 4;
    std::string misaligned = s, overlapping = s;
    misaligned.replace(b_offset, 8, [] { std::string le; GgufWriter::put_u64(le, 33); return le; }());
    overlapping.replace(b_offset, 8, [] { std::string le; GgufWriter::put_u64(le, 0); return le; }());
    CHECK(error_field(parse_whole(misaligned, 200)) == "tensor b.weight offset");
    CHECK(error_field(parse_whole(overlapping, 200)) == "tensor b.weight offset");
  }
  SECTION("repeats, nesting and a bad alignment") {
    GgufWriter twice;
    twice.add_u32("general.alignment", 32);
    twice.add_u32("general.alignment", 32);
    uint64_t d = 0;
    CHECK(error_field(parse_whole(twice.header(d))) == "general.alignment");
    GgufWriter names;
    names.add_tensor("a.weight", {8}, "f32");
    names.add_tensor("a.weight", {8}, "f32");
    CHECK(error_field(parse_whole(names.header(d), d)) == "tensor a.weight");
    GgufWriter align;
    align.add_u32("general.alignment", 48);
    CHECK(error_field(parse_whole(align.header(d))) == "general.alignment");
    std::string nested = "GGUF";
    GgufWriter::put_u32(nested, 3);
    GgufWriter::put_u64(nested, 0);
    GgufWriter::put_u64(nested, 1);
    GgufWriter::put_u64(nested, 1);
    nested += "k";
    GgufWriter::put_u32(nested, 9);  // array
    GgufWriter::put_u32(nested, 9);  // of arrays
    GgufWriter::put_u64(nested, 1);
    CHECK(error_field(parse_whole(nested + std::string(64, '\0'))) == "k");
  }
}

TEST_CASE("GGUF fixtures give the figures their published llama_model_loader dumps print", "[gguf]") {
  auto gib = [](uint64_t bytes) { return std::round(static_cast<double>(bytes) / (1u << 30) * 100) / 100; };
  auto two_places = [](double v) { return std::round(v * 100) / 100; };
  SECTION("Mistral-7B-Instruct-v0.2 Q3_K_M: model params = 7.24 B, model size = 3.28 GiB (3.89 BPW), n_head_kv = 8") {
    auto [snap, r] = hfi::testing::inspect_fixture("TheBloke/Mistral-7B-Instruct-v0.2-GGUF");
    REQUIRE(r.gguf);
    CHECK(r.gguf->selected == "mistral-7b-instruct-v0.2.Q3_K_M.gguf");
    CHECK(r.gguf->type == "Q3_K_M");  // from the file's name: this dump printed no general.file_type
    CHECK(r.params_source == hfi::ParamsSource::Gguf);
    CHECK(r.params.total == 7'241'732'096ull);  // Mistral-7B: its index's 14,483,464,192 bytes at bf16, / 2
    CHECK(gib(r.storage.stored_bytes) == 3.28);
    CHECK(two_places(r.gguf->bits_per_weight) == 3.89);
    CHECK(r.model_type == "llama");
    CHECK(r.reconcile.status == hfi::ReconcileStatus::Complete);
    CHECK(r.reconcile.unexplained_tensors == 0);
    // 32 layers x 8 KV heads x 128 x (K and V) x 2 bytes (F16, llama.cpp's default cache type)
    CHECK(r.kv.bytes_per_token == 32ull * 8 * 128 * 2 * 2);
    CHECK(r.max_context == 32768u);  // n_ctx_train
    CHECK(r.memory.weight_bytes == r.storage.stored_bytes);
  }
  SECTION("Llama-2-7B-chat: Q5_K_M 4.45 GiB (5.68 BPW), Q4_0 3.53 GiB (4.50 BPW), both 6.74 B") {
    auto [snap, table] = hfi::testing::inspect_fixture("TheBloke/Llama-2-7B-Chat-GGUF");
    REQUIRE(table.gguf);
    CHECK(table.gguf->selected.empty());  // two variants, none named: the table alone
    REQUIRE(table.gguf->variants.size() == 2);
    const auto& q4 = table.gguf->variants[0];
    const auto& q5 = table.gguf->variants[1];
    CHECK(q4.type == "Q4_0");
    CHECK(gib(q4.tensor_bytes) == 3.53);
    CHECK(two_places(q4.bits_per_weight) == 4.50);
    CHECK(q5.type == "Q5_K_M");  // general.file_type 17
    CHECK(gib(q5.tensor_bytes) == 4.45);
    CHECK(two_places(q5.bits_per_weight) == 5.68);
    CHECK(q4.params == 6'738'415'616ull);  // Llama-2-7b's parameters
    CHECK(q5.params == 6'738'415'616ull);
    hfi::ReportOptions pick;
    pick.gguf_variant = "q5_k_m";
    auto [snap5, r5] = hfi::testing::inspect_fixture("TheBloke/Llama-2-7B-Chat-GGUF", pick);
    CHECK(r5.gguf->selected == "llama-2-7b-chat.Q5_K_M.gguf");
    CHECK(r5.params.total == 6'738'415'616ull);
    CHECK(r5.reconcile.status == hfi::ReconcileStatus::Complete);
    CHECK(r5.kv.bytes_per_token == 32ull * 32 * 128 * 2 * 2);  // MHA: 32 KV heads
    CHECK(r5.max_context == 4096u);
    pick.gguf_variant = "llama-2-7b-chat.Q4_0.gguf";
    auto [snap4, r4] = hfi::testing::inspect_fixture("TheBloke/Llama-2-7B-Chat-GGUF", pick);
    CHECK(r4.gguf->type == "Q4_0");
    CHECK(r4.max_context == 2048u);  // converted from GGML: n_ctx_train 2048
  }
}

TEST_CASE("GGUF variants: --variant by type or file, a usage error listing the choices", "[gguf]") {
  const auto dir = hfi::testing::materialized("TheBloke/Llama-2-7B-Chat-GGUF");
  auto table = hfi::testing::run_cli(dir.string());
  CHECK(table.code == 0);
  CHECK(table.out.find("GGUF variants") != std::string::npos);
  CHECK(table.out.find("--variant") != std::string::npos);
  auto unknown = hfi::testing::run_cli(dir.string() + " --variant Q8_0");
  CHECK(unknown.code == 2);
  CHECK(unknown.err.find("Q5_K_M (llama-2-7b-chat.Q5_K_M.gguf)") != std::string::npos);
  auto json = hfi::testing::run_cli(dir.string() + " --variant Q4_0 --json");
  REQUIRE(json.code == 0);
  auto doc = hfi::testing::parse_stdout(json.out);
  CHECK(doc.find("gguf")->find("selected")->as_string() == "llama-2-7b-chat.Q4_0.gguf");
  CHECK(doc.find("gguf")->find("variants")->items().size() == 2);
  CHECK(doc.find("params")->find("total")->as_uint() == 6'738'415'616ull);
}

TEST_CASE("a tiny Qwen3-MoE GGUF: stacked experts reconcile one by one, and the counts are exact", "[gguf]") {
  // hidden 64, 2 layers, 4 query heads and 2 KV heads of 16, 4 experts of 32 (2 used), vocab 100.
  GgufWriter w;
  w.add_string("general.architecture", "qwen3moe");
  w.add_u32("general.file_type", 7);  // Q8_0
  for (auto [key, value] : std::initializer_list<std::pair<const char*, uint32_t>>{
           {"qwen3moe.block_count", 2}, {"qwen3moe.context_length", 128}, {"qwen3moe.embedding_length", 64},
           {"qwen3moe.feed_forward_length", 96}, {"qwen3moe.attention.head_count", 4}, {"qwen3moe.attention.head_count_kv", 2},
           {"qwen3moe.attention.key_length", 16}, {"qwen3moe.attention.value_length", 16}, {"qwen3moe.expert_count", 4},
           {"qwen3moe.expert_used_count", 2}, {"qwen3moe.expert_feed_forward_length", 32}})
    w.add_u32(key, value);
  w.add_f32("qwen3moe.rope.freq_base", 1e6f);
  w.add_f32("qwen3moe.attention.layer_norm_rms_epsilon", 1e-6f);
  w.add_tensor("token_embd.weight", {64, 100}, "q8_0");
  for (int l = 0; l < 2; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    w.add_tensor(b + "attn_norm.weight", {64}, "f32");
    w.add_tensor(b + "attn_q.weight", {64, 64}, "q8_0");
    w.add_tensor(b + "attn_k.weight", {64, 32}, "q8_0");
    w.add_tensor(b + "attn_v.weight", {64, 32}, "q8_0");
    w.add_tensor(b + "attn_output.weight", {64, 64}, "q8_0");
    w.add_tensor(b + "attn_q_norm.weight", {16}, "f32");
    w.add_tensor(b + "attn_k_norm.weight", {16}, "f32");
    w.add_tensor(b + "ffn_norm.weight", {64}, "f32");
    w.add_tensor(b + "ffn_gate_inp.weight", {64, 4}, "f32");
    w.add_tensor(b + "ffn_gate_exps.weight", {64, 32, 4}, "q8_0");
    w.add_tensor(b + "ffn_up_exps.weight", {64, 32, 4}, "q8_0");
    w.add_tensor(b + "ffn_down_exps.weight", {32, 64, 4}, "q8_0");
  }
  w.add_tensor("output_norm.weight", {64}, "f32");
  w.add_tensor("output.weight", {64, 100}, "q8_0");
  const auto dir = hfi::testing::fresh_work_dir("gguf/tiny-qwen3moe");
  uint64_t data = 0;
  const std::string header = w.header(data);
  write_file(dir / "tiny-Q8_0.gguf", header, data);
  auto [snap, r] = hfi::testing::inspect_dir(dir);
  CHECK(r.model_type == "qwen3_moe");
  CHECK(r.reconcile.status == hfi::ReconcileStatus::Complete);
  CHECK(r.reconcile.unexplained_tensors == 0);
  CHECK(r.reconcile.missing.empty());
  // Per layer: norms 64 + 64, q 4,096 + k 2,048 + v 2,048 + o 4,096, q/k norms 16 + 16,
  // router 64 x 4 = 256, experts 3 x 64 x 32 x 4 = 24,576: 37,280. Two layers, the embedding and
  // the head 6,400 each, the final norm 64.
  CHECK(r.params.total == 2 * 37'280 + 6'400 + 6'400 + 64);
  // Two of four experts per token: half the experts' 24,576 per layer are idle.
  CHECK(r.params.active == r.params.total - 2 * 12'288);
  CHECK(r.kv.bytes_per_token == 2 * 2 * 16 * 2 * 2);  // layers x KV heads x head_dim x (K, V) x F16
  CHECK(r.gguf->type == "Q8_0");
}

TEST_CASE("split GGUF sets: the parts add up, and a missing part is named", "[gguf]") {
  const auto dir = hfi::testing::fresh_work_dir("gguf/split");
  auto part = [&](int n, const std::vector<std::string>& tensors) {
    GgufWriter w;
    if (n == 1) w.add_string("general.architecture", "unknownarch");
    w.add_u32("split.no", static_cast<uint32_t>(n - 1));
    w.add_u32("split.count", 2);
    for (const auto& t : tensors) w.add_tensor(t, {32, 4}, "f32");
    uint64_t data = 0;
    const std::string header = w.header(data);
    write_file(dir / ("m-Q8_0-0000" + std::to_string(n) + "-of-00002.gguf"), header, data);
  };
  part(1, {"a.weight", "b.weight"});
  part(2, {"c.weight"});
  auto [snap, r] = hfi::testing::inspect_dir(dir);
  REQUIRE(r.gguf);
  REQUIRE(r.gguf->variants.size() == 1);
  CHECK(r.gguf->variants[0].parts == 2);
  CHECK(r.gguf->variants[0].params == 3 * 128);
  CHECK(r.params.total == 3 * 128);
  CHECK(r.shard_count == 2);
  fs::remove(dir / "m-Q8_0-00002-of-00002.gguf");
  auto cut = hfi::testing::run_cli(dir.string());
  CHECK(cut.code == 3);
  CHECK(cut.err.find("set of 2 parts, of which 1 are present") != std::string::npos);
}

TEST_CASE("a GGUF download cut short, or with a header that lies, exits 5 naming the field", "[gguf]") {
  const auto dir = hfi::testing::fresh_work_dir("gguf/cut");
  uint64_t data = 0;
  const std::string header = small_llama().header(data);
  write_file(dir / "m.gguf", header, data / 2);
  auto run = hfi::testing::run_cli(dir.string());
  CHECK(run.code == 5);
  CHECK(run.err.find("offset") != std::string::npos);
  CHECK(run.err.find("cut short") != std::string::npos);
}

TEST_CASE("a GGUF repository through the hub: one ranged read per file, then the cache alone", "[gguf][remote]") {
  hfi::testhub::TestHub hub(hfi::testing::fixture_hub());
  const std::string repo = "TheBloke/Llama-2-7B-Chat-GGUF";
  const auto cache = hfi::testing::fresh_work_dir("gguf/remote-cache");
  auto cold = hfi::testing::run_cli(repo + " --variant Q5_K_M --json", hfi::testing::hub_env(hub, cache));
  INFO(cold.err);
  REQUIRE(cold.code == 0);
  CHECK(hfi::testing::total_params(cold.out) == 6'738'415'616ull);
  const auto log = hub.requests();
  for (const char* file : {"llama-2-7b-chat.Q5_K_M.gguf", "llama-2-7b-chat.Q4_0.gguf"}) {
    INFO(file);
    // Both variants' headers (the table needs each one's tensors), each in one window: a 302 from
    // the hub, then one ranged read on the CDN, which stops at the first window.
    CHECK(hfi::testing::count_if(log, [&](const auto& r) { return r.origin == "hub" && r.path.ends_with(file); }) == 1);
    CHECK(hfi::testing::count_if(log, [&](const auto& r) { return r.origin == "cdn" && r.range.starts_with("bytes=0-"); }) == 2);
  }
  hub.clear_requests();
  auto offline = hfi::testing::run_cli(repo + " --variant Q5_K_M --offline --json", hfi::testing::hub_env(hub, cache));
  INFO(offline.err);
  REQUIRE(offline.code == 0);
  CHECK(hub.requests().empty());
  CHECK(hfi::testing::total_params(offline.out) == 6'738'415'616ull);
}

TEST_CASE("a config.json beside a GGUF is compared with the GGUF's keys", "[gguf]") {
  const auto dir = hfi::testing::fresh_work_dir("gguf/with-config");
  // A fresh sparse copy: fs::copy would write the 3.5 GB hole out as zeros.
  hfi::testing::materialize_fixture(hfi::testing::fixtures_dir() / "TheBloke/Mistral-7B-Instruct-v0.2-GGUF", dir);
  // Mistral-7B-v0.1's published config: the same shapes, so nothing disagrees.
  fs::copy(hfi::testing::fixtures_dir() / "mistralai/Mistral-7B-v0.1/config.json", dir / "config.json");
  auto [snap, same] = hfi::testing::inspect_dir(dir);
  REQUIRE(same.gguf);
  CHECK(same.gguf->config_mismatches.empty());
  CHECK(same.params.total == 7'241'732'096ull);
  // The same config claiming 4 KV heads: the GGUF's 8 are what the tensors hold.
  std::string text = hfi::testing::slurp(dir / "config.json");
  const size_t at = text.find("\"num_key_value_heads\": 8");
  REQUIRE(at != std::string::npos);
  text.replace(at, 24, "\"num_key_value_heads\": 4");
  std::ofstream(dir / "config.json", std::ios::trunc) << text;
  auto [snap2, differs] = hfi::testing::inspect_dir(dir);
  REQUIRE(differs.gguf->config_mismatches.size() == 1);
  CHECK(differs.gguf->config_mismatches[0] == "num_key_value_heads: config.json says 4, the GGUF 8");
  CHECK(differs.kv.bytes_per_token == 32ull * 8 * 128 * 2 * 2);
}

TEST_CASE("a GGUF on the hub whose header is not one exits 5 naming the field", "[gguf][remote]") {
  hfi::testhub::TestHub hub(hfi::testing::fixture_hub());
  // "GGUF", then zeros where the version should be: a 4.9 GB file with nothing behind the magic.
  hub.add_repo("test/gguf-zeros", {{"model-Q4_K_M.gguf", {"GGUF", 4'920'734'016ull, true}}});
  auto r = hfi::testing::run_cli("test/gguf-zeros", hfi::testing::hub_env(hub, hfi::testing::fresh_work_dir("gguf/zeros")));
  CHECK(r.code == 5);
  CHECK(r.err.find("model-Q4_K_M.gguf") != std::string::npos);
  CHECK(r.err.find("'version'") != std::string::npos);
}
