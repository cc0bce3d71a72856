#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "core/json.hpp"
#include "formats/model_config.hpp"
#include "formats/safetensors_index.hpp"
#include "formats/side_configs.hpp"

TEST_CASE("index: weight map, shards in order, total size, duplicate claims") {
  std::string text = R"({"metadata":{"total_size":123,"total_parameters":60},
    "weight_map":{"a":"model-00001-of-00002.safetensors","b":"model-00002-of-00002.safetensors",
                  "c":"model-00001-of-00002.safetensors","a":"model-00002-of-00002.safetensors"}})";
  auto r = hfi::parse_safetensors_index(text, "model.safetensors.index.json");
  REQUIRE(r.ok());
  CHECK(r->total_size == 123u);
  CHECK(r->total_parameters == 60u);
  CHECK(r->weight_map.size() == 3);
  CHECK(r->shards == std::vector<std::string>{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"});
  CHECK(r->claimed_twice == std::vector<std::string>{"a"});

  // Listed twice in a row, and after the order breaks: sorted maps need no name table until then.
  struct Twice {
    std::string map;
    size_t entries;
  };
  for (const auto& [map, entries] : std::vector<Twice>{
           {R"("a":"s1.safetensors","b":"s1.safetensors","b":"s2.safetensors")", 2},
           {R"("b":"s1.safetensors","a":"s1.safetensors","c":"s2.safetensors","b":"s2.safetensors")", 3}}) {
    INFO(map);
    auto again = hfi::parse_safetensors_index("{\"weight_map\":{" + map + "}}", "model.safetensors.index.json");
    REQUIRE(again.ok());
    CHECK(again->claimed_twice == std::vector<std::string>{"b"});
    CHECK(again->weight_map.size() == entries);
  }
}

TEST_CASE("index: hostile shard names are refused, naming the tensor") {
  for (std::string bad : {"../../etc/passwd", "/abs/model.safetensors", "https://evil.example/x.safetensors",
                          "a\\\\b.safetensors", "sub/../../x.safetensors", "ctl\\u0001.safetensors", ""}) {
    INFO(bad);
    std::string text = R"({"weight_map":{"w":")" + bad + R"("}})";
    auto r = hfi::parse_safetensors_index(text, "model.safetensors.index.json");
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().field == "weight_map.w");
    CHECK(r.error().file == "model.safetensors.index.json");
  }
  auto ok = hfi::parse_safetensors_index(R"({"weight_map":{"w":"transformer/model.safetensors"}})", "i.json");
  CHECK(ok.ok());
}

TEST_CASE("config: nested text_config wins, aliases, root fallback") {
  std::string text = R"({"model_type":"gemma3","architectures":["Gemma3ForConditionalGeneration"],
    "text_config":{"model_type":"gemma3_text","hidden_size":2560},"vocab_size":262208})";
  auto cfg = hfi::ModelConfig::parse(text, "config.json");
  REQUIRE(cfg.ok());
  CHECK(cfg->model_type() == "gemma3");
  CHECK(cfg->text_model_type() == "gemma3_text");
  CHECK(cfg->integer({"n_embd", "hidden_size"}) == 2560);
  CHECK(cfg->integer({"vocab_size"}) == 262208);
  CHECK_FALSE(cfg->integer({"num_hidden_layers"}).has_value());
  hfi::ModelConfig copy = *cfg;  // the nested pointer must follow the copy
  CHECK(copy.integer({"hidden_size"}) == 2560);
}

TEST_CASE("generation config: a token id past 2^63 is kept exactly as written") {
  // 2^64 - 1, which fits no signed 64-bit integer: it was read from an empty optional before.
  auto g = hfi::parse_generation_config(R"({"eos_token_id":18446744073709551615,"pad_token_id":[9223372036854775808]})",
                                        "generation_config.json");
  REQUIRE(g.ok());
  REQUIRE(g->eos_token_ids.size() == 1);
  CHECK(g->eos_token_ids[0].dump() == "18446744073709551615");
  REQUIRE(g->pad_token_id);
  CHECK(g->pad_token_id->dump() == "9223372036854775808");
}

TEST_CASE("generation config: eos as list or int, decoding keys in file order") {
  auto g = hfi::parse_generation_config(R"({"bos_token_id":1,"eos_token_id":[2,7],"temperature":0.6,"do_sample":true})",
                                        "generation_config.json");
  REQUIRE(g.ok());
  REQUIRE(g->eos_token_ids.size() == 2);
  CHECK(g->eos_token_ids[0].as_int() == 2);
  CHECK(g->eos_token_ids[1].as_int() == 7);
  REQUIRE(g->bos_token_id);
  CHECK(g->bos_token_id->as_int() == 1);
  REQUIRE(g->decoding.size() == 2);
  CHECK(g->decoding[0].first == "temperature");
  auto bad = hfi::parse_generation_config(R"({"eos_token_id":"two"})", "generation_config.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "eos_token_id");
}

TEST_CASE("tokenizer config: added-token objects, unbounded length, named templates") {
  auto t = hfi::parse_tokenizer_config(
      R"({"bos_token":{"content":"<s>","lstrip":false},"eos_token":"</s>","model_max_length":1000000000000000019884624838656,
          "add_bos_token":true,"padding_side":"left","chat_template":[{"name":"default","template":"x"},{"name":"tool_use","template":"y"}],
          "added_tokens_decoder":{"0":{"content":"<unk>"},"1":{"content":"<s>"}}})",
      "tokenizer_config.json");
  REQUIRE(t.ok());
  CHECK(t->bos_token == "<s>");
  CHECK(t->eos_token == "</s>");
  CHECK_FALSE(t->model_max_length.has_value());
  CHECK(t->add_bos_token == true);
  CHECK(t->padding_side == "left");
  CHECK(t->has_chat_template);
  CHECK(t->chat_template_names == std::vector<std::string>{"default", "tool_use"});
  CHECK(t->added_tokens == 2);
}

TEST_CASE("config: a repeated key takes its last value, as Python's json module does, and is named") {
  // json.loads('{"hidden_size": 1, "hidden_size": 4096}')["hidden_size"] == 4096
  auto cfg = hfi::ModelConfig::parse(R"({"model_type":"llama","hidden_size":1,"text_config":{"a":1,"b":2,"a":3},"hidden_size":4096})",
                                     "config.json");
  REQUIRE(cfg.ok());
  CHECK(cfg->integer({"hidden_size"}) == 4096);
  CHECK(cfg->root().members().size() == 3);  // the key keeps its first place
  CHECK(cfg->root().members()[1].first == "hidden_size");
  CHECK(cfg->repeated_keys() == std::vector<std::string>{"text_config.a", "hidden_size"});
  // Past 16 members the repeats are found through a table instead: same answer.
  std::string big = "{";
  for (int i = 0; i < 40; ++i) big += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  big += "\"k7\":700}";
  auto wide = hfi::ModelConfig::parse(big, "config.json");
  REQUIRE(wide.ok());
  CHECK(wide->integer({"k7"}) == 700);
  CHECK(wide->repeated_keys() == std::vector<std::string>{"k7"});
  auto g = hfi::parse_generation_config(R"({"temperature":0.6,"temperature":1.0})", "generation_config.json");
  REQUIRE(g.ok());
  CHECK(g->repeated_keys == std::vector<std::string>{"temperature"});
  REQUIRE(g->decoding.size() == 1);
  CHECK(g->decoding[0].second.as_double() == 1.0);
}

TEST_CASE("config: an integer wider than 64 bits beside a long fraction both read") {
  // transformers writes int(1e30) for an unbounded length; Python writes 17 significant digits
  // and more for a float. The integer is read as a double; the fraction's digits are not touched.
  auto cfg = hfi::ModelConfig::parse(
      R"({"model_type":"llama","model_max_length":1000000000000000019884624838656,"initializer_range":0.0199999999999999999999})",
      "config.json");
  REQUIRE(cfg.ok());
  CHECK(cfg->number({"model_max_length"}) == 1e30);
  CHECK(cfg->number({"initializer_range"}) == Approx(0.02));
}

TEST_CASE("config: NaN and Infinity, which Python's json writes bare, read as doubles") {
  auto cfg = hfi::ModelConfig::parse(
      R"({"model_type":"llama","router_aux_loss_coef":NaN,"max_z":Infinity,"min_z":-Infinity,"names":["NaN", "-Infinity"],"ok":1})",
      "config.json");
  REQUIRE(cfg.ok());
  CHECK(std::isnan(*cfg->number({"router_aux_loss_coef"})));
  CHECK(cfg->number({"max_z"}) == std::numeric_limits<double>::infinity());
  CHECK(cfg->number({"min_z"}) == -std::numeric_limits<double>::infinity());
  CHECK(cfg->integer({"ok"}) == 1);
  // Inside strings they stay strings; written back out they stay valid JSON.
  auto doc = hfi::parse_json(R"({"a":NaN,"b":[-Infinity],"c":"NaN"})", "x.json");
  REQUIRE(doc);
  CHECK(doc->find("c")->as_string() == "NaN");
  CHECK(doc->dump() == R"({"a":"NaN","b":["-Infinity"],"c":"NaN"})");
  // No other bare word gets in, nor a string made to look like the stand-in for one.
  CHECK_FALSE(hfi::parse_json(R"({"a":nan})", "x.json"));
  CHECK_FALSE(hfi::parse_json(R"({"a":NaN,"b":"\u0000\u0001NaN"})", "x.json"));
  CHECK(hfi::parse_json(R"({"b":"\u0000\u0001NaN"})", "x.json")->find("b")->is_string());
}
