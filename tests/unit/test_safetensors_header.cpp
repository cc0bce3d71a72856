#include <catch2/catch.hpp>

#include "formats/safetensors_header.hpp"
#include "support/bytes.hpp"

using hfi::testing::bytes_of;
using hfi::testing::safetensors_prefix;
using hfi::testing::with_length;

namespace {
hfi::Result<hfi::SafetensorsHeader> parse(const std::string& bytes, std::optional<uint64_t> size = std::nullopt) {
  return hfi::parse_safetensors_header(bytes_of(bytes), "shard.safetensors", size);
}
}  // namespace

TEST_CASE("a well-formed header parses into sorted tensors with counts") {
  // 2x3 BF16 = 12 bytes, then 4 F32 = 16 bytes; listed out of offset order on purpose.
  std::string h = R"({"b":{"dtype":"F32","shape":[4],"data_offsets":[12,28]},)"
                  R"("__metadata__":{"format":"pt"},"a":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]}})";
  auto bytes = safetensors_prefix(h);
  auto r = parse(bytes, bytes.size() + 28);
  REQUIRE(r.ok());
  REQUIRE(r->tensors.size() == 2);
  CHECK(r->tensors[0].name == "a");
  CHECK(r->tensors[0].elements == 6);
  CHECK(r->tensors[1].name == "b");
  CHECK(r->data_bytes == 28);
  CHECK(r->metadata.size() == 1);
  CHECK(r->metadata[0].second == "pt");
  CHECK(r->file_size() == 8 + h.size() + 28);
}

TEST_CASE("sub-byte and scale dtypes have the widths of the format") {
  // F4: 64 values = 32 bytes; F6_E2M3: 8 values = 6 bytes; F8_E8M0: 3 bytes; rank-0 BF16 = 2 bytes.
  std::string h = R"({"f4":{"dtype":"F4","shape":[64],"data_offsets":[0,32]},)"
                  R"("f6":{"dtype":"F6_E2M3","shape":[8],"data_offsets":[32,38]},)"
                  R"("e8":{"dtype":"F8_E8M0","shape":[3],"data_offsets":[38,41]},)"
                  R"("s":{"dtype":"BF16","shape":[],"data_offsets":[41,43]},)"
                  R"("empty":{"dtype":"I32","shape":[0,5],"data_offsets":[43,43]}})";
  auto r = parse(safetensors_prefix(h));
  REQUIRE(r.ok());
  CHECK(r->data_bytes == 43);
}

TEST_CASE("hostile headers are refused with the file and the field named") {
  struct Case {
    const char* what;
    std::string bytes;
    std::optional<uint64_t> size;
    const char* field;
    const char* message_part;
  };
  std::string ok_entry = R"("t":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
  std::vector<Case> cases = {
      {"shorter than 8 bytes", "abc", std::nullopt, "header length", "shorter than the 8-byte"},
      {"2^62 declared length", with_length(uint64_t{1} << 62, "{}"), std::nullopt, "header length", "exceeds the limit"},
      {"length past the file", with_length(64, "{}"), 20, "header length", "past the end"},
      {"truncated header", with_length(100, R"({"t":{"dtype")"), std::nullopt, "header", "truncated"},
      {"invalid UTF-8", safetensors_prefix("{\"t\xff\":1}"), std::nullopt, "header", "UTF-8"},
      {"invalid JSON", safetensors_prefix(R"({"t":{"dtype":"F32",})"), std::nullopt, "header", "not valid JSON"},
      {"not an object", safetensors_prefix("[1,2]"), std::nullopt, "header", "start with '{'"},
      {"unknown dtype", safetensors_prefix(R"({"t":{"dtype":"Q4_K","shape":[2],"data_offsets":[0,8]}})"), std::nullopt,
       "t.dtype", "unknown dtype"},
      {"dimension overflow", safetensors_prefix(R"({"t":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})"),
       std::nullopt, "t.shape", "overflows 64 bits"},
      {"negative dimension", safetensors_prefix(R"({"t":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})"), std::nullopt,
       "t.shape", "non-negative"},
      {"overlapping offsets",
       safetensors_prefix(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})"),
       std::nullopt, "b.data_offsets", "overlaps"},
      {"gap between tensors", safetensors_prefix(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})"), std::nullopt,
       "a.data_offsets", "gap"},
      {"byte count disagrees with shape", safetensors_prefix(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})"),
       std::nullopt, "a.data_offsets", "need 12"},
      {"odd F4 count", safetensors_prefix(R"({"a":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})"), std::nullopt, "a.shape",
       "whole number of bytes"},
      {"end before begin", safetensors_prefix(R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})"), std::nullopt,
       "a.data_offsets", "before begin"},
      {"duplicate tensor", safetensors_prefix("{" + ok_entry + "," + ok_entry + "}"), std::nullopt, "t", "twice"},
      {"duplicate tensor, apart", safetensors_prefix("{" + ok_entry + R"(,"u":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)" + ok_entry + "}"),
       std::nullopt, "t", "twice"},
      {"metadata value not a string", safetensors_prefix(R"({"__metadata__":{"n":3}})"), std::nullopt, "__metadata__.n",
       "not a string"},
      {"data shorter than the file", safetensors_prefix("{" + ok_entry + "}"), 1000, "data_offsets", "file has 1000 bytes"},
      {"deeply nested JSON", safetensors_prefix("{\"a\":" + std::string(200, '[') + std::string(200, ']') + "}"), std::nullopt,
       "header", "nested deeper"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    auto r = parse(c.bytes, c.size);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == hfi::ErrorKind::Malformed);
    CHECK(r.error().file == "shard.safetensors");
    CHECK(r.error().field == c.field);
    CHECK_THAT(r.error().message, Catch::Contains(c.message_part));
  }
}

TEST_CASE("the header length alone is checked before any allocation") {
  auto prefix = with_length(uint64_t{1} << 40, "");
  auto n = hfi::read_safetensors_header_length(bytes_of(prefix), "x.safetensors");
  REQUIRE_FALSE(n.ok());
  CHECK_THAT(n.error().describe(), Catch::Contains("x.safetensors") && Catch::Contains("1099511627776"));
}

TEST_CASE("space padding after the JSON is accepted, as writers pad to 8 bytes") {
  std::string h = R"({"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
  h += std::string((8 - h.size() % 8) % 8 + 8, ' ');
  auto r = parse(safetensors_prefix(h));
  REQUIRE(r.ok());
  CHECK(r->header_length % 8 == 0);
}

TEST_CASE("sizes and offsets written as floats, and fields given twice, are refused as the reference reader refuses them") {
  for (const char* h : {R"({"a":{"dtype":"F16","shape":[2.0],"data_offsets":[0,4]}})",
                        R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4e0]}})",
                        R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0.0,4]}})"}) {
    auto r = parse(safetensors_prefix(h));
    INFO(h);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == hfi::ErrorKind::Malformed);
  }
  auto twice = parse(safetensors_prefix(R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4],"dtype":"F32"}})"));
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().field == "a.dtype");
  CHECK_THAT(twice.error().message, Catch::Contains("twice"));
}
