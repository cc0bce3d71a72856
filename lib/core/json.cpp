#include "core/json_dom.hpp"

#include <simdjson.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_map>

namespace hfi {

Json Json::make_bool(bool v) { Json j; j.kind_ = Kind::Bool; j.bool_ = v; return j; }
Json Json::make_int(int64_t v) { Json j; j.kind_ = Kind::Int; j.int_ = v; return j; }
Json Json::make_uint(uint64_t v) { Json j; j.kind_ = Kind::Uint; j.uint_ = v; return j; }
Json Json::make_double(double v) { Json j; j.kind_ = Kind::Double; j.double_ = v; return j; }
Json Json::make_string(std::string v) { Json j; j.kind_ = Kind::String; j.string_ = std::move(v); return j; }
Json Json::make_array(std::vector<Json> items) {
  Json j; j.kind_ = Kind::Array; j.items_ = std::move(items); return j;
}
Json Json::make_object(std::vector<Member> members) {
  Json j; j.kind_ = Kind::Object; j.members_ = std::move(members); return j;
}

bool Json::is_integer() const {
  if (kind_ == Kind::Int || kind_ == Kind::Uint) return true;
  return kind_ == Kind::Double && std::isfinite(double_) && std::floor(double_) == double_ &&
         std::fabs(double_) < 9.0e15;
}

std::optional<int64_t> Json::as_int() const {
  switch (kind_) {
    case Kind::Int: return int_;
    case Kind::Uint:
      if (uint_ <= static_cast<uint64_t>(INT64_MAX)) return static_cast<int64_t>(uint_);
      return std::nullopt;
    case Kind::Double:
      if (is_integer()) return static_cast<int64_t>(double_);
      return std::nullopt;
    default: return std::nullopt;
  }
}

std::optional<uint64_t> Json::as_uint() const {
  switch (kind_) {
    case Kind::Int:
      if (int_ >= 0) return static_cast<uint64_t>(int_);
      return std::nullopt;
    case Kind::Uint: return uint_;
    case Kind::Double:
      if (is_integer() && double_ >= 0) return static_cast<uint64_t>(double_);
      return std::nullopt;
    default: return std::nullopt;
  }
}

std::optional<double> Json::as_double() const {
  switch (kind_) {
    case Kind::Int: return static_cast<double>(int_);
    case Kind::Uint: return static_cast<double>(uint_);
    case Kind::Double: return double_;
    default: return std::nullopt;
  }
}

const Json* Json::find(std::string_view key) const {
  if (kind_ != Kind::Object) return nullptr;
  for (const auto& [k, v] : members_)
    if (k == key) return &v;
  return nullptr;
}

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

static void dump_to(const Json& j, std::string& out) {
  switch (j.kind()) {
    case Json::Kind::Null: out += "null"; break;
    case Json::Kind::Bool: out += j.as_bool() ? "true" : "false"; break;
    case Json::Kind::Int: out += std::to_string(*j.as_int()); break;
    case Json::Kind::Uint: out += std::to_string(*j.as_uint()); break;
    case Json::Kind::Double: {
      char buf[40];
      double d = *j.as_double();
      // JSON has no spelling for these; Python writes NaN and Infinity bare. A string keeps the
      // value readable and the output valid JSON.
      if (std::isnan(d)) { out += "\"NaN\""; break; }
      if (std::isinf(d)) { out += d > 0 ? "\"Infinity\"" : "\"-Infinity\""; break; }
      // Whole values as Python writes them (1000000.0, not 1e+06): configs come from Python.
      if (std::floor(d) == d && std::fabs(d) < 1e16) {
        std::snprintf(buf, sizeof buf, "%.1f", d);
        out += buf;
        break;
      }
      std::snprintf(buf, sizeof buf, "%.17g", d);
      // Prefer the shortest text that reads back to the same double.
      for (int precision = 1; precision <= 17; ++precision) {
        char shorter[40];
        std::snprintf(shorter, sizeof shorter, "%.*g", precision, d);
        if (std::strtod(shorter, nullptr) == d) { std::snprintf(buf, sizeof buf, "%s", shorter); break; }
      }
      out += buf;
      break;
    }
    case Json::Kind::String: append_json_string(out, j.as_string()); break;
    case Json::Kind::Array: {
      out += '[';
      bool first = true;
      for (const auto& item : j.items()) {
        if (!first) out += ',';
        first = false;
        dump_to(item, out);
      }
      out += ']';
      break;
    }
    case Json::Kind::Object: {
      out += '{';
      bool first = true;
      for (const auto& [k, v] : j.members()) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, k);
        out += ':';
        dump_to(v, out);
      }
      out += '}';
      break;
    }
  }
}

static void dump_pretty_to(const Json& j, std::string& out, int indent, int depth) {
  bool container = (j.is_array() && !j.items().empty()) || (j.is_object() && !j.members().empty());
  if (!container) {
    dump_to(j, out);
    return;
  }
  std::string pad(static_cast<size_t>(indent * (depth + 1)), ' ');
  std::string close_pad(static_cast<size_t>(indent * depth), ' ');
  out += j.is_array() ? "[\n" : "{\n";
  bool first = true;
  if (j.is_array()) {
    for (const auto& item : j.items()) {
      if (!first) out += ",\n";
      first = false;
      out += pad;
      dump_pretty_to(item, out, indent, depth + 1);
    }
  } else {
    for (const auto& [k, v] : j.members()) {
      if (!first) out += ",\n";
      first = false;
      out += pad;
      append_json_string(out, k);
      out += ": ";
      dump_pretty_to(v, out, indent, depth + 1);
    }
  }
  out += "\n" + close_pad + (j.is_array() ? "]" : "}");
}

std::string Json::dump_pretty(int indent) const {
  std::string out;
  dump_pretty_to(*this, out, indent, 0);
  out += "\n";
  return out;
}

std::string Json::dump() const {
  std::string out;
  dump_to(*this, out);
  return out;
}

bool Json::operator==(const Json& other) const {
  if (is_number() && other.is_number()) {
    if (is_integer() && other.is_integer()) {
      auto a = as_int(), b = other.as_int();
      if (a && b) return *a == *b;
      return as_uint() == other.as_uint();
    }
    return as_double() == other.as_double();
  }
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::Null: return true;
    case Kind::Bool: return bool_ == other.bool_;
    case Kind::String: return string_ == other.string_;
    case Kind::Array: return items_ == other.items_;
    case Kind::Object: return members_ == other.members_;
    default: return false;
  }
}

namespace {

// Python's json module writes NaN, Infinity and -Infinity bare, and configs carry them (a float
// field left unset). JSON has no such literals, so they are rewritten as marker strings no valid
// input holds (they start with the escapes of U+0000 U+0001, refused in the input) and read back
// as doubles.
constexpr std::string_view kMarkerEscape = "\\u0000\\u0001";
constexpr std::pair<std::string_view, double> kNonfinite[] = {
    {"-Infinity", -std::numeric_limits<double>::infinity()},
    {"Infinity", std::numeric_limits<double>::infinity()},
    {"NaN", std::numeric_limits<double>::quiet_NaN()},
};

std::optional<double> nonfinite_marker_value(std::string_view s) {
  if (s.size() < 2 || s[0] != '\0' || s[1] != '\1') return std::nullopt;
  for (const auto& [literal, value] : kNonfinite)
    if (s.substr(2) == literal) return value;
  return std::nullopt;
}

// Copies `text`, handing each position outside string literals to `rewrite(text, i, out)`, which
// appends what replaces the text there and returns how many characters that took (0: none, the
// character is copied as it is).
template <class Rewrite>
std::string rewrite_outside_strings(std::string_view text, Rewrite rewrite) {
  std::string out;
  out.reserve(text.size() + 16);
  bool in_string = false;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') in_string = false;
      ++i;
      continue;
    }
    if (c == '"') in_string = true;
    if (size_t used = in_string ? 0 : rewrite(text, i, out); used > 0) {
      i += used;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

// The text with each bare NaN, Infinity and -Infinity outside strings replaced by its marker
// string; nullopt when there is none (or the text already holds the marker's escapes).
std::optional<std::string> mark_python_nonfinite(std::string_view text) {
  if (text.find(kMarkerEscape) != std::string_view::npos) return std::nullopt;
  bool marked = false;
  std::string out = rewrite_outside_strings(text, [&](std::string_view t, size_t i, std::string& to) -> size_t {
    for (const auto& [literal, value] : kNonfinite) {
      if (t.substr(i, literal.size()) != literal) continue;
      to += '"';
      to += kMarkerEscape;
      to += literal;
      to += '"';
      marked = true;
      return literal.size();
    }
    return 0;
  });
  return marked ? std::optional<std::string>(std::move(out)) : std::nullopt;
}

// Copies the DOM into a Json tree. A key repeated in one object keeps its first place and takes
// its last value, as Python's json module (which every training and serving stack reads these
// files with) does; each repeat's dotted path goes to `repeated`.
class Converter {
 public:
  // `nonfinite_markers`: the text went through mark_python_nonfinite(), whose marker strings
  // stand for NaN and the infinities.
  Converter(std::vector<std::string>* repeated, bool nonfinite_markers) : repeated_(repeated), markers_(nonfinite_markers) {}

  Json convert(simdjson::dom::element e) {
    using T = simdjson::dom::element_type;
    switch (e.type()) {
      case T::NULL_VALUE: return Json();
      case T::BOOL: return Json::make_bool(bool(e));
      case T::INT64: return Json::make_int(int64_t(e));
      case T::UINT64: return Json::make_uint(uint64_t(e));
      case T::DOUBLE: return Json::make_double(double(e));
      case T::STRING: {
        std::string_view text(e);
        if (markers_)
          if (auto d = nonfinite_marker_value(text)) return Json::make_double(*d);
        return Json::make_string(std::string(text));
      }
      case T::ARRAY: {
        std::vector<Json> items;
        simdjson::dom::array array(e);
        items.reserve(array.size());
        for (auto child : array) items.push_back(convert(child));
        return Json::make_array(std::move(items));
      }
      case T::OBJECT: return convert_object(simdjson::dom::object(e));
    }
    return Json();
  }

 private:
  Json convert_object(simdjson::dom::object object) {
    std::vector<Json::Member> members;
    members.reserve(object.size());
    // Where each key went; small objects (nearly all) are searched in place instead.
    constexpr size_t kSearchedInPlace = 16;
    std::unordered_map<std::string_view, size_t> at;
    if (object.size() > kSearchedInPlace) at.reserve(object.size());
    for (auto field : object) {
      const size_t depth = path_.size();
      path_ += (path_.empty() ? "" : ".") + std::string(field.key);
      Json value = convert(field.value);
      size_t place = members.size();
      if (object.size() > kSearchedInPlace) {
        place = at.emplace(field.key, members.size()).first->second;
      } else {
        for (size_t k = 0; k < members.size(); ++k)
          if (members[k].first == field.key) place = k;
      }
      if (place == members.size()) {
        members.emplace_back(std::string(field.key), std::move(value));
      } else {
        members[place].second = std::move(value);
        if (repeated_) repeated_->push_back(path_);
      }
      path_.resize(depth);
    }
    return Json::make_object(std::move(members));
  }

  std::vector<std::string>* repeated_;
  bool markers_;
  std::string path_;  // dotted path of the member being converted
};

// simdjson refuses integers wider than 64 bits, yet transformers writes int(1e30) for an unbounded
// model_max_length. Rewrite such literals as doubles (append ".0") and parse again.
std::string widen_big_integers(std::string_view text) {
  return rewrite_outside_strings(text, [](std::string_view t, size_t i, std::string& to) -> size_t {
    if (t[i] < '0' || t[i] > '9') return 0;
    // Only a number's integer part is widened: the digits of a fraction or an exponent
    // ("0.1234567890123456789012", "1e12345678901234567890") are left as they are.
    const char before = i > 0 ? t[i - 1] : ' ';
    const bool integer_part = before != '.' && before != 'e' && before != 'E' &&
                              !((before == '+' || before == '-') && i > 1 && (t[i - 2] == 'e' || t[i - 2] == 'E'));
    size_t end = i;
    while (end < t.size() && t[end] >= '0' && t[end] <= '9') ++end;
    to.append(t.substr(i, end - i));
    const bool plain_integer = end >= t.size() || (t[end] != '.' && t[end] != 'e' && t[end] != 'E');
    if (integer_part && plain_integer && end - i > 19) to += ".0";
    return end - i;
  });
}

}  // namespace

std::optional<uint64_t> whole_number(simdjson::dom::element e) {
  using T = simdjson::dom::element_type;
  switch (e.type()) {
    case T::UINT64: return uint64_t(e);
    case T::INT64: {
      int64_t v = int64_t(e);
      return v >= 0 ? std::optional<uint64_t>(static_cast<uint64_t>(v)) : std::nullopt;
    }
    case T::DOUBLE: {
      double v = double(e);
      if (v >= 0 && v < 18446744073709551616.0 && v == static_cast<double>(static_cast<uint64_t>(v))) return static_cast<uint64_t>(v);
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

Result<simdjson::dom::element> JsonDom::parse(std::string_view text, std::string_view file, JsonLimits limits) {
  if (text.size() > limits.max_bytes)
    return malformed(std::string(file), "",
                     "JSON document of " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                         std::to_string(limits.max_bytes) + " bytes");
  // A parser read from document to document (a run's shard headers) keeps its buffers: they are
  // allocated again only for a longer document or another depth limit.
  simdjson::dom::element root;
  // (The size limit is checked above: simdjson 3.0.1's set_max_capacity() caps every parser at
  // 32 bytes, so the parser keeps its default.)
  auto load = [&](std::string_view doc) {
    if ((parser_.capacity() < doc.size() + 1 || parser_.max_depth() != limits.max_depth) &&
        parser_.allocate(doc.size() + 1, limits.max_depth) != simdjson::SUCCESS)
      return simdjson::MEMALLOC;
    padded_.assign(doc);
    padded_.resize(doc.size() + simdjson::SIMDJSON_PADDING);
    return parser_.parse(padded_.data(), doc.size(), false).get(root);
  };
  auto err = load(text);
  if (err == simdjson::MEMALLOC) return malformed(std::string(file), "", "cannot allocate a JSON parser for this document");
  if (err == simdjson::NUMBER_ERROR || err == simdjson::NUMBER_OUT_OF_RANGE) {
    err = load(widen_big_integers(text));
    if (err == simdjson::MEMALLOC) return malformed(std::string(file), "", "cannot allocate a JSON parser for this document");
  }
  if (err) {
    std::string what = simdjson::error_message(err);
    if (err == simdjson::UTF8_ERROR) what = "invalid UTF-8";
    if (err == simdjson::DEPTH_ERROR) what = "JSON nested deeper than " + std::to_string(limits.max_depth) + " levels";
    return malformed(std::string(file), "", "not valid JSON: " + what);
  }
  return root;
}

Result<Json> parse_json(std::string_view text, std::string_view file, JsonLimits limits, std::vector<std::string>* repeated_keys) {
  JsonDom dom;
  auto root = dom.parse(text, file, limits);
  if (root) return Converter(repeated_keys, false).convert(*root);
  auto marked = mark_python_nonfinite(text);
  if (!marked) return root.error();
  auto again = dom.parse(*marked, file, limits);
  if (!again) return root.error();  // the first error names the original text's problem
  return Converter(repeated_keys, true).convert(*again);
}

}  // namespace hfi
