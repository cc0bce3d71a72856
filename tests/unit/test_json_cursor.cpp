// JsonCursor, and the index parser that reads plain documents with it: whatever path an index
// takes, the result (or error) must be the full parser's. Shard headers have one parser, whose
// DOM a run keeps from header to header: a kept one must answer as a fresh one does.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/json_dom.hpp"
#include "core/json_cursor.hpp"
#include "support/bytes.hpp"
#include "support/fixture_repo.hpp"
#include "support/parse_summary.hpp"
#include "support/run_cli.hpp"

namespace fs = std::filesystem;
using hfi::JsonCursor;
using hfi::testing::summary;

namespace {

using hfi::testing::slurp;

void same_index(const std::string& text) {
  INFO(text.substr(0, 200));
  CHECK(summary(hfi::parse_safetensors_index(text, "i.json")) == summary(hfi::parse_safetensors_index_fully(text, "i.json")));
}

// `kept` has parsed other headers before this one (longer, shorter, broken).
void same_header(const std::string& json, hfi::JsonDom& kept, std::optional<uint64_t> file_size = std::nullopt) {
  INFO(json.substr(0, 200));
  std::string bytes = hfi::testing::safetensors_prefix(json);
  CHECK(summary(hfi::parse_safetensors_header(hfi::testing::bytes_of(bytes), "m.safetensors", file_size)) ==
        summary(hfi::parse_safetensors_header(hfi::testing::bytes_of(bytes), "m.safetensors", file_size, kept)));
}

}  // namespace

TEST_CASE("json cursor: plain strings only, views into the text") {
  std::string text = R"( "model.layers.0.mlp.experts.17.down_proj.weight" , "a\"b" "é" "tab	here" "unterminated)";
  JsonCursor c(text);
  std::string_view s;
  REQUIRE(c.plain_string(s));
  CHECK(s == "model.layers.0.mlp.experts.17.down_proj.weight");
  CHECK(s.data() == text.data() + 2);  // no copy
  CHECK(c.consume(','));
  CHECK_FALSE(c.plain_string(s));  // an escape
  JsonCursor accent(R"("é")");
  CHECK_FALSE(accent.plain_string(s));  // non-ASCII: the full parser checks UTF-8
  JsonCursor tab("\"tab\there\"");
  CHECK_FALSE(tab.plain_string(s));  // a raw control character is not JSON
  JsonCursor open(R"("unterminated)");
  CHECK_FALSE(open.plain_string(s));
  // Every special byte position within and across the 8-byte steps.
  for (size_t at = 0; at < 20; ++at) {
    std::string body(20, 'x');
    body[at] = '\\';
    std::string escaped = "\"" + body + "\"";  // the cursor views its text: keep it alive
    JsonCursor k(escaped);
    CHECK_FALSE(k.plain_string(s));
    body[at] = '"';  // a string ends there
    std::string doc = "\"" + body + "\"";
    JsonCursor q(doc);
    REQUIRE(q.plain_string(s));
    CHECK(s.size() == at);
  }
}

TEST_CASE("json cursor: unsigned integers in plain notation") {
  uint64_t v = 0;
  JsonCursor ok(" 0 , 18446744073709551615 ");
  REQUIRE(ok.unsigned_integer(v));
  CHECK(v == 0);
  REQUIRE(ok.consume(','));
  REQUIRE(ok.unsigned_integer(v));
  CHECK(v == UINT64_MAX);
  CHECK(ok.at_end());
  // Nineteen digits are read without an overflow test; the twentieth is tested; a twenty-first never fits.
  for (auto [text, value] : {std::pair<const char*, uint64_t>{"1234567890123456789", 1234567890123456789ull},
                             {"10000000000000000000", 10000000000000000000ull},
                             {"18446744073709551614", UINT64_MAX - 1}}) {
    INFO(text);
    JsonCursor c(text);
    REQUIRE(c.unsigned_integer(v));
    CHECK(v == value);
    CHECK(c.at_end());
  }
  for (const char* bad : {"18446744073709551616", "99999999999999999999", "184467440737095516150", "100000000000000000000",
                          "01", "-1", "1.0", "1e3", "1E3", "", "x"}) {
    INFO(bad);
    JsonCursor c(bad);
    CHECK_FALSE(c.unsigned_integer(v));
  }
}

TEST_CASE("json cursor: skipping a value keeps strings and brackets straight") {
  std::string_view span;
  JsonCursor obj(R"( {"a": [1, {"b": "}]"}], "c": "\"{"} , 5)");
  REQUIRE(obj.skip_value(span, 8));
  CHECK(span == R"({"a": [1, {"b": "}]"}], "c": "\"{"})");
  CHECK(obj.consume(','));
  REQUIRE(obj.skip_value(span, 8));
  CHECK(span == "5");
  JsonCursor deep("[[[[1]]]]");
  CHECK_FALSE(deep.skip_value(span, 3));
  JsonCursor cut(R"({"a": "b)");
  CHECK_FALSE(cut.skip_value(span, 8));
  JsonCursor scalar("true}");
  REQUIRE(scalar.skip_value(span, 8));
  CHECK(span == "true");
}

TEST_CASE("index: the cursor path gives the full parser's answer") {
  for (std::string text : {
           R"({"metadata":{"total_size":123},"weight_map":{"a":"s1.safetensors","b":"s2.safetensors","a":"s2.safetensors"}})",
           R"({ "weight_map" : { } , "metadata" : null })",
           R"({"weight_map":{"a":"s.safetensors"},"metadata":{"total_size":"77","total_parameters":5}})",
           R"({"weight_map":{"a":"s.safetensors"},"metadata":{"total_size":1.5}})",           // error in metadata
           R"({"weight_map":{"a":"s.safetensors"},"metadata":{"total_parameters":"5"}})",
           R"({"weight_map":{"a":"s.safetensors"},"metadata":[1,2]})",
           R"({"weight_map":{"a":"../s.safetensors"}})",                                       // unsafe shard name
           R"({"weight_map":{"a\u0062":"s.safetensors","ab":"s.safetensors"}})",             // escape: same name twice
           R"({"weight_map":{"é":"s.safetensors"}})",
           R"({"weight_map":{"a":5}})",
           R"({"weight_map":[]})",
           R"({"metadata":{}})",
           R"({"weight_map":{"a":"s.safetensors"},"weight_map":{"b":"t.safetensors"}})",   // repeated member
           R"({"weight_map":{"a":"s.safetensors"},"extra":{"x":[1,2,{"y":null}]}})",
           R"({"weight_map":{"a":"s.safetensors"}} x)",                                     // trailing junk
           R"({"weight_map":{"a":"s.safetensors",}})",                                      // trailing comma
           R"({"weight_map":{"a":"s.safetensors"})",                                        // truncated
           "{\"weight_map\":{\"a\":\"s.safetensors\"},\"metadata\":{\"k\":\"\xff\"}}",        // bad UTF-8 in metadata
           "\t{\"weight_map\":{\"a\":\"s.safetensors\"}}\n",
           R"([])",
           "",
       })
    same_index(text);
}

TEST_CASE("header: a parser kept from header to header answers as a fresh one") {
  hfi::JsonDom kept;
  for (std::string json : {
           R"({"__metadata__":{"format":"pt"},"b":{"dtype":"BF16","shape":[2,3],"data_offsets":[0,12]},"a":{"dtype":"F32","shape":[],"data_offsets":[12,16]}})",
           R"({ "a" : { "data_offsets" : [ 0 , 4 ] , "shape" : [ 2 ] , "dtype" : "F16" } })",
           R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4],"dtype":"F32"}})",          // repeated field
           R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4],"extra":1}})",              // unknown field
           R"({"a":{"dtype":"F16","shape":[2.0],"data_offsets":[0,4]}})",                      // a float dimension
           R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,5]}})",                        // wrong span
           R"({"a":{"dtype":"Q9","shape":[2],"data_offsets":[0,4]}})",                         // unknown dtype
           R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[4,0]}})",
           R"({"a":{"dtype":"F16","shape":[1,1,1,1,1,1,1,1,1,2],"data_offsets":[0,4]}})",     // rank 10
           R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},"a":{"dtype":"F16","shape":[2],"data_offsets":[4,8]}})",
           R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},"b":{"dtype":"F16","shape":[2],"data_offsets":[8,12]}})",  // gap
           R"({"__metadata__":{"n":1},"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})",
           R"({"__metadata__":{"n":"1"},"__metadata__":{},"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})",
           R"({"a\u00e9":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})",
           R"({"a":{"dtype":"F16","shape":[4294967296,4294967296,2],"data_offsets":[0,4]}})",  // overflow
           R"({"a":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})",                         // sub-byte remainder
           R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}        )",                // padding
           R"({"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}} ])",
           R"({})",
           R"({"a":[]})",
           R"({"a":{"dtype":"","shape":[2],"data_offsets":[0,4]}})",                          // empty dtype
           // Many dtypes, some coming back after others.
           R"({"a":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"F32","shape":[2],"data_offsets":[2,10]},)"
           R"("c":{"dtype":"BF16","shape":[2],"data_offsets":[10,14]},"d":{"dtype":"I32","shape":[2],"data_offsets":[14,22]},)"
           R"("e":{"dtype":"U8","shape":[2],"data_offsets":[22,24]},"f":{"dtype":"F64","shape":[2],"data_offsets":[24,40]},)"
           R"("g":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[40,42]},"h":{"dtype":"F16","shape":[2],"data_offsets":[42,46]},)"
           R"("i":{"dtype":"F32","shape":[2],"data_offsets":[46,54]},"j":{"dtype":"Q9","shape":[2],"data_offsets":[54,56]}})",
       }) {
    same_header(json, kept);
    same_header(json, kept, 8 + json.size() + 4);
  }
}

TEST_CASE("index and header: every fixture reads the same both ways") {
  size_t indexes = 0, headers = 0;
  hfi::JsonDom kept;
  for (const auto& entry : fs::recursive_directory_iterator(hfi::testing::fixtures_dir())) {
    std::string name = entry.path().filename().string();
    if (name.ends_with(".safetensors.index.json")) {
      same_index(slurp(entry.path()));
      ++indexes;
    } else if (name.ends_with(".safetensors.header.json")) {
      same_header(slurp(entry.path()), kept);
      ++headers;
    }
  }
  CHECK(indexes > 40);
  CHECK(headers > 400);
}

TEST_CASE("header: every tensor keeps its own dtype when a header mixes many") {
  // Many dtypes, returning after others, with neighbours of the same name length and width (F32,
  // I32, U32): a dtype mistaken for another of its width would still add up, so the names are
  // checked one by one. Widths from the safetensors format.
  const std::vector<std::pair<std::string, uint64_t>> entries = {
      {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"F32", 4}, {"I32", 4}, {"U32", 4}, {"BF16", 2}, {"F16", 2}, {"I16", 2},
      {"F64", 8},     {"I64", 8},     {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"I32", 4}, {"F32", 4}, {"U16", 2},
  };
  std::string json = "{";
  uint64_t at = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    uint64_t end = at + 3 * entries[i].second;
    json += std::string(i ? "," : "") + "\"t" + std::to_string(10 + i) + "\":{\"dtype\":\"" + entries[i].first +
            "\",\"shape\":[3],\"data_offsets\":[" + std::to_string(at) + "," + std::to_string(end) + "]}";
    at = end;
  }
  json += "}";
  std::string bytes = hfi::testing::safetensors_prefix(json);
  auto h = hfi::parse_safetensors_header(hfi::testing::bytes_of(bytes), "m.safetensors", std::nullopt);
  REQUIRE(h);
  REQUIRE(h->tensors.size() == entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    INFO(i);
    CHECK(hfi::dtype_name(h->tensors[i].dtype) == entries[i].first);
    CHECK(h->tensors[i].bytes() == 3 * entries[i].second);
  }
  CHECK(h->data_bytes == at);
}
