// docs/json-schema.md marks some `hfinspect --json` keys **stable**: scripts and CI rely on them,
// and they change only with a schema_version bump. The doc is read here at test time, so a row
// marked stable is a checked promise the moment it is written: every stable key must be in every
// report below, with the type the doc gives it.
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "support/fixture_repo.hpp"
#include "support/run_cli.hpp"

namespace {

// One row of the doc's table: the keys it names (with `[]` stripped), its types ("string/null"
// gives {"string", "null"}) and whether it is marked stable.
struct SchemaRow {
  std::vector<std::string> keys;
  std::set<std::string> types;
  bool stable = false;
  bool array_suffix = false;  // some key was written `name[]`
};

std::string trimmed(std::string_view s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

// The cells of "| a | b | c |"; a '|' inside backticks belongs to its cell.
std::vector<std::string> table_cells(std::string_view line) {
  std::vector<std::string> cells;
  std::string cell;
  bool in_code = false;
  for (char c : line.substr(1)) {
    if (c == '`') in_code = !in_code;
    if (c == '|' && !in_code) {
      cells.push_back(trimmed(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  return cells;
}

std::vector<std::string> backticked(std::string_view cell) {
  std::vector<std::string> spans;
  for (size_t open = cell.find('`'); open != std::string_view::npos; open = cell.find('`', open + 1)) {
    size_t close = cell.find('`', open + 1);
    if (close == std::string_view::npos) break;
    spans.emplace_back(cell.substr(open + 1, close - open - 1));
    open = close;
  }
  return spans;
}

// A row listing `a.b`, `c`, ... names `a.c` by its second key: keys after the first without a dot
// share the first key's parent.
SchemaRow parse_row(const std::string& key_cell, const std::string& type_cell) {
  SchemaRow row;
  row.stable = key_cell.find("**stable**") != std::string::npos;
  std::string parent;
  for (auto key : backticked(key_cell)) {
    if (key.size() > 2 && key.ends_with("[]")) {
      key.resize(key.size() - 2);
      row.array_suffix = true;
    }
    if (row.keys.empty()) {
      auto dot = key.rfind('.');
      parent = dot == std::string::npos ? "" : key.substr(0, dot + 1);
    } else if (key.find('.') == std::string::npos) {
      key = parent + key;
    }
    row.keys.push_back(key);
  }
  std::string_view types = type_cell;
  while (!types.empty()) {
    auto slash = types.find('/');
    row.types.insert(trimmed(types.substr(0, slash)));
    types = slash == std::string_view::npos ? std::string_view{} : types.substr(slash + 1);
  }
  return row;
}

// Every row of the doc's key table (the header and its |---| rule skipped).
std::vector<SchemaRow> schema_rows(const std::string& doc) {
  std::vector<SchemaRow> rows;
  size_t start = 0;
  while (start < doc.size()) {
    size_t end = doc.find('\n', start);
    if (end == std::string::npos) end = doc.size();
    std::string_view line(doc.data() + start, end - start);
    start = end + 1;
    if (!line.starts_with("| `")) continue;
    auto cells = table_cells(line);
    if (cells.size() >= 2) rows.push_back(parse_row(cells[0], cells[1]));
  }
  return rows;
}

// The schema_version the doc's title names: "# `hfinspect --json` (schema_version 1)".
int64_t documented_schema_version(const std::string& doc) {
  auto at = doc.find("(schema_version ");
  if (at == std::string::npos) return -1;
  return std::stoll(doc.substr(at + 16));
}

const std::set<std::string> kKnownTypes = {"int", "string", "null", "object", "array", "bool", "float"};

// The doc's name for a JSON value's type.
std::string type_name(simdjson::dom::element value) {
  using T = simdjson::dom::element_type;
  switch (value.type()) {
    case T::INT64:
    case T::UINT64: return "int";
    case T::DOUBLE: return "float";
    case T::STRING: return "string";
    case T::NULL_VALUE: return "null";
    case T::OBJECT: return "object";
    case T::ARRAY: return "array";
    case T::BOOL: return "bool";
  }
  return "unknown";
}

// A float written without a fraction reads back as an int, and is still a float.
bool has_type(simdjson::dom::element value, const std::set<std::string>& types) {
  std::string name = type_name(value);
  return types.count(name) > 0 || (name == "int" && types.count("float") > 0);
}

// Why `key` (dotted) does not hold in `report`, or "" when it does. A key under a parent the doc
// allows to be null (`quantization.method` when `quantization` is null) holds vacuously.
std::string violation(simdjson::dom::element report, const std::string& key, const std::set<std::string>& types,
                      const std::map<std::string, std::set<std::string>>& documented) {
  simdjson::dom::element at = report;
  size_t from = 0;
  while (true) {
    size_t dot = key.find('.', from);
    std::string prefix = key.substr(0, dot);
    simdjson::dom::object object;
    if (at.get(object) != simdjson::SUCCESS) return "the parent of " + prefix + " is not an object";
    if (object[key.substr(from, dot == std::string::npos ? std::string::npos : dot - from)].get(at) != simdjson::SUCCESS)
      return "missing";
    if (dot == std::string::npos) break;
    if (at.is_null()) {
      auto parent = documented.find(prefix);
      if (parent != documented.end() && parent->second.count("null") > 0) return "";
      return prefix + " is null, and the doc does not say it may be";
    }
    from = dot + 1;
  }
  if (!has_type(at, types)) return "is " + type_name(at) + ", not of a documented type";
  return "";
}

// Fixtures that between them reach every kind of report: dense, MoE, MLA with FP8 and MTP, GPTQ,
// NVFP4, a quantized upload with findings, metadata only (config + index) and config only.
const std::vector<std::string> kReportFixtures = {
    "meta-llama/Llama-3.1-8B",
    "Qwen/Qwen3-30B-A3B",
    "deepseek-ai/DeepSeek-V3",
    "quantized/gptq-int4-mythomax-l2-13b",
    "quantized/nvfp4-modelopt-llama-3.3-70b",
    "quantized/broken/scale-shape-llama-3.1-8b",
    "mistralai/Mistral-7B-v0.1",
    "Qwen/Qwen3-8B",
};

}  // namespace

TEST_CASE("schema doc parsing: multi-key rows, arrays, nullable types, stable marks", "[schema]") {
  std::string doc =
      "| key | type | meaning |\n"
      "|---|---|---|\n"
      "| `a.b` **stable** | string/null | x |\n"
      "| `m.x`, `m.y`, `m.z` **stable** | int | sum |\n"
      "| `q.one`, `two` | int / object | inherits q. |\n"
      "| `r.list[]` **stable** | array | `{a|b}` |\n"
      "| `free` | bool | not stable |\n";
  auto rows = schema_rows(doc);
  REQUIRE(rows.size() == 5);
  CHECK(rows[0].keys == std::vector<std::string>{"a.b"});
  CHECK(rows[0].types == std::set<std::string>{"string", "null"});
  CHECK(rows[1].keys == std::vector<std::string>{"m.x", "m.y", "m.z"});
  CHECK(rows[1].stable);
  CHECK(rows[2].keys == std::vector<std::string>{"q.one", "q.two"});
  CHECK(rows[2].types == std::set<std::string>{"int", "object"});
  CHECK_FALSE(rows[2].stable);
  CHECK(rows[3].keys == std::vector<std::string>{"r.list"});
  CHECK(rows[3].array_suffix);
  CHECK(rows[3].types == std::set<std::string>{"array"});
  CHECK_FALSE(rows[4].stable);
  CHECK(documented_schema_version("# `hfinspect --json` (schema_version 7)\n") == 7);
}

TEST_CASE("every stable key of docs/json-schema.md is in every --json report, with its documented type", "[schema]") {
  std::string doc = hfi::testing::slurp(HFINSPECT_JSON_SCHEMA_DOC);
  REQUIRE_FALSE(doc.empty());
  std::map<std::string, std::set<std::string>> documented;
  std::vector<std::pair<std::string, std::set<std::string>>> stable;
  for (const auto& row : schema_rows(doc)) {
    INFO("row starting with " << (row.keys.empty() ? "(no key)" : row.keys.front()));
    REQUIRE_FALSE(row.keys.empty());
    if (row.array_suffix) CHECK(row.types == std::set<std::string>{"array"});
    for (const auto& key : row.keys) documented[key] = row.types;
    if (!row.stable) continue;
    for (const auto& type : row.types) CHECK(kKnownTypes.count(type) > 0);
    for (const auto& key : row.keys) stable.emplace_back(key, row.types);
  }
  // 35 stable keys in schema_version 1, counted by hand in the doc's table. Stable keys may be
  // added; fewer means a key was dropped (a schema change) or this parser lost rows.
  CHECK(stable.size() >= 35);
  int64_t version = documented_schema_version(doc);
  CHECK(version >= 1);

  simdjson::dom::parser parser;
  for (const auto& fixture : kReportFixtures) {
    auto run = hfi::testing::run_cli(hfi::testing::materialized(fixture).string() + " --json");
    INFO(fixture << ": " << run.err);
    REQUIRE(run.code == 0);
    simdjson::dom::element report;
    REQUIRE(parser.parse(run.out).get(report) == simdjson::SUCCESS);
    int64_t reported = -1;
    CHECK(report["schema_version"].get(reported) == simdjson::SUCCESS);
    CHECK(reported == version);
    for (const auto& [key, types] : stable) {
      INFO("stable key " << key);
      CHECK(violation(report, key, types, documented) == "");
    }
  }
}
