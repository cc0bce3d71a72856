// An owned, order-preserving JSON tree. Every JSON input passes through parse_json(), which
// bounds size and depth and rejects invalid UTF-8, so parsers downstream work on checked values.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace hfi {

class Json {
 public:
  enum class Kind { Null, Bool, Int, Uint, Double, String, Array, Object };
  using Member = std::pair<std::string, Json>;

  Json() = default;
  static Json make_bool(bool v);
  static Json make_int(int64_t v);
  static Json make_uint(uint64_t v);
  static Json make_double(double v);
  static Json make_string(std::string v);
  static Json make_array(std::vector<Json> items);
  static Json make_object(std::vector<Member> members);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::Null; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_number() const { return kind_ == Kind::Int || kind_ == Kind::Uint || kind_ == Kind::Double; }
  bool is_integer() const;  // Int, Uint, or a Double with no fractional part
  bool is_string() const { return kind_ == Kind::String; }
  bool is_array() const { return kind_ == Kind::Array; }
  bool is_object() const { return kind_ == Kind::Object; }

  bool as_bool() const { return bool_; }
  const std::string& as_string() const { return string_; }
  std::optional<int64_t> as_int() const;
  std::optional<uint64_t> as_uint() const;
  std::optional<double> as_double() const;
  const std::vector<Json>& items() const { return items_; }
  const std::vector<Member>& members() const { return members_; }

  // Object lookup; nullptr when absent or when this is not an object.
  const Json* find(std::string_view key) const;

  // Compact, deterministic JSON text (member order preserved).
  std::string dump() const;
  // Indented JSON text, `indent` spaces per level, for people and diffs.
  std::string dump_pretty(int indent = 2) const;
  bool operator==(const Json& other) const;

 private:
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  int64_t int_ = 0;
  uint64_t uint_ = 0;
  double double_ = 0;
  std::string string_;
  std::vector<Json> items_;
  std::vector<Member> members_;
};

// A small JSON file as read: its path in the repository and its tree.
struct JsonFile {
  std::string path;
  Json json;
};

struct JsonLimits {
  size_t max_bytes = 64u << 20;  // refuse documents larger than this before parsing
  size_t max_depth = 64;
};

// Parses `text` as JSON. `file` names the input in error messages. A key repeated in an object
// takes its last value, as in Python; with `repeated_keys`, the dotted path of each repeat is
// added there.
Result<Json> parse_json(std::string_view text, std::string_view file, JsonLimits limits = {},
                        std::vector<std::string>* repeated_keys = nullptr);

// Appends `s` to `out` as a quoted JSON string.
void append_json_string(std::string& out, std::string_view s);

}  // namespace hfi
