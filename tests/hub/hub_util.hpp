// Small pieces the test hub is built from: hashes, URL encoding, query strings, byte ranges and a
// JSON writer. Test scaffolding: errors throw.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"

namespace hfi::testhub::util {

// Lowercase hex digests (OpenSSL EVP).
std::string sha1_hex(std::string_view data);
std::string sha256_hex(std::string_view data);
// Git's blob id of `prefix` followed by zero bytes up to `size` ("blob <size>\0" + content).
std::string git_blob_sha1(std::string_view prefix, uint64_t size);

bool is_hex(std::string_view s);

// %XX decoding ('+' stays '+': these are paths). Invalid escapes are kept verbatim.
std::string percent_decode(std::string_view s);
// Query-string decoding: like percent_decode but '+' means a space.
std::string form_decode(std::string_view s);
// Encodes everything except RFC 3986 unreserved characters; `keep_slash` leaves '/' alone.
std::string percent_encode(std::string_view s, bool keep_slash);

// Splits "a/b//c" into {"a","b","","c"} (no leading empty segment for a leading '/').
std::vector<std::string> split_path(std::string_view path);

// Ordered list of decoded (key, value) pairs, repeated keys kept.
using Query = std::vector<std::pair<std::string, std::string>>;
Query parse_query(std::string_view query);

// Byte ranges as the test hub interprets a Range header against a body of `size` bytes.
struct RangeDecision {
  enum class Kind { Whole, Partial, Unsatisfiable } kind = Kind::Whole;
  uint64_t first = 0, last = 0;  // inclusive, valid for Partial
};
// Single ranges "a-b" (end clamped), "a-" and "-n". For a multi-range header only the first range
// is honoured. An unparseable header is ignored (whole body), as RFC 9110 allows.
RangeDecision decide_range(std::string_view header, uint64_t size);

// Appends `s` as a JSON string literal: the library's own escaping.
using hfi::append_json_string;

// A tiny streaming JSON writer: commas are inserted automatically.
class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(uint64_t n);
  JsonWriter& value(int64_t n);
  JsonWriter& value(int n) { return value(static_cast<int64_t>(n)); }
  JsonWriter& value(bool b);
  JsonWriter& null();
  JsonWriter& raw(std::string_view json);  // an already-serialised value
  const std::string& str() const { return out_; }

 private:
  void separate();
  std::string out_;
  std::vector<bool> first_;  // one flag per open container: no member written yet
  bool after_key_ = false;
};

std::string http_date_now();
const char* reason_phrase(int status);

}  // namespace hfi::testhub::util
