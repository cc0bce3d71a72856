#include "hub/hub_util.hpp"

#include <openssl/evp.h>

#include <array>
#include <charconv>
#include <ctime>
#include <memory>
#include <stdexcept>

namespace hfi::testhub::util {

namespace {

class Digest {
 public:
  explicit Digest(const EVP_MD* md) : ctx_(EVP_MD_CTX_new()) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), md, nullptr) != 1) throw std::runtime_error("EVP_DigestInit failed");
  }
  void update(const void* data, size_t n) {
    if (n != 0 && EVP_DigestUpdate(ctx_.get(), data, n) != 1) throw std::runtime_error("EVP_DigestUpdate failed");
  }
  std::string hex() {
    unsigned char buf[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), buf, &n) != 1) throw std::runtime_error("EVP_DigestFinal failed");
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < n; ++i) {
      out += digits[buf[i] >> 4];
      out += digits[buf[i] & 15];
    }
    return out;
  }

 private:
  struct Free {
    void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
  };
  std::unique_ptr<EVP_MD_CTX, Free> ctx_;
};

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string decode(std::string_view s, bool plus_is_space) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%' && i + 2 < s.size()) {
      int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += (plus_is_space && c == '+') ? ' ' : c;
  }
  return out;
}

std::optional<uint64_t> parse_u64(std::string_view s) {
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string sha1_hex(std::string_view data) {
  Digest d(EVP_sha1());
  d.update(data.data(), data.size());
  return d.hex();
}

std::string sha256_hex(std::string_view data) {
  Digest d(EVP_sha256());
  d.update(data.data(), data.size());
  return d.hex();
}

std::string git_blob_sha1(std::string_view prefix, uint64_t size) {
  if (prefix.size() > size) throw std::invalid_argument("git_blob_sha1: prefix longer than size");
  Digest d(EVP_sha1());
  std::string head = "blob " + std::to_string(size);
  d.update(head.data(), head.size() + 1);  // includes the terminating NUL
  d.update(prefix.data(), prefix.size());
  static const std::array<char, 1 << 16> zeros{};
  for (uint64_t left = size - prefix.size(); left > 0;) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(left, zeros.size()));
    d.update(zeros.data(), n);
    left -= n;
  }
  return d.hex();
}

bool is_hex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string percent_decode(std::string_view s) { return decode(s, false); }
std::string form_decode(std::string_view s) { return decode(s, true); }

std::string percent_encode(std::string_view s, bool keep_slash) {
  static const char* digits = "0123456789ABCDEF";
  std::string out;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '.' || c == '_' || c == '~' || (keep_slash && c == '/');
    if (unreserved) {
      out += ch;
    } else {
      out += '%';
      out += digits[c >> 4];
      out += digits[c & 15];
    }
  }
  return out;
}

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> out;
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  if (path.empty()) return out;
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) {
      out.emplace_back(path.substr(start));
      return out;
    }
    out.emplace_back(path.substr(start, slash - start));
    start = slash + 1;
  }
}

Query parse_query(std::string_view query) {
  Query out;
  size_t start = 0;
  while (start <= query.size()) {
    size_t amp = query.find('&', start);
    if (amp == std::string_view::npos) amp = query.size();
    std::string_view item = query.substr(start, amp - start);
    if (!item.empty()) {
      size_t eq = item.find('=');
      if (eq == std::string_view::npos) {
        out.emplace_back(form_decode(item), "");
      } else {
        out.emplace_back(form_decode(item.substr(0, eq)), form_decode(item.substr(eq + 1)));
      }
    }
    start = amp + 1;
  }
  return out;
}

RangeDecision decide_range(std::string_view header, uint64_t size) {
  RangeDecision whole;
  std::string_view h = trim(header);
  if (h.substr(0, 6) != "bytes=") return whole;
  h.remove_prefix(6);
  if (size_t comma = h.find(','); comma != std::string_view::npos) h = h.substr(0, comma);
  h = trim(h);
  size_t dash = h.find('-');
  if (dash == std::string_view::npos) return whole;
  std::string_view a = trim(h.substr(0, dash)), b = trim(h.substr(dash + 1));
  RangeDecision d;
  d.kind = RangeDecision::Kind::Partial;
  if (a.empty()) {  // suffix form: the last n bytes
    auto n = parse_u64(b);
    if (!n) return whole;
    if (*n == 0 || size == 0) return {RangeDecision::Kind::Unsatisfiable, 0, 0};
    d.first = *n >= size ? 0 : size - *n;
    d.last = size - 1;
    return d;
  }
  auto first = parse_u64(a);
  if (!first) return whole;
  std::optional<uint64_t> last;
  if (!b.empty()) {
    last = parse_u64(b);
    if (!last || *last < *first) return whole;  // syntactically invalid: ignored
  }
  if (*first >= size) return {RangeDecision::Kind::Unsatisfiable, 0, 0};
  d.first = *first;
  d.last = last ? std::min(*last, size - 1) : size - 1;
  return d;
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

JsonWriter& JsonWriter::begin_object() {
  separate();
  out_ += '{';
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  out_ += '}';
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  separate();
  out_ += '[';
  first_.push_back(true);
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  out_ += ']';
  first_.pop_back();
  return *this;
}
JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  append_json_string(out_, k);
  out_ += ':';
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(std::string_view s) {
  separate();
  append_json_string(out_, s);
  return *this;
}
JsonWriter& JsonWriter::value(uint64_t n) {
  separate();
  out_ += std::to_string(n);
  return *this;
}
JsonWriter& JsonWriter::value(int64_t n) {
  separate();
  out_ += std::to_string(n);
  return *this;
}
JsonWriter& JsonWriter::value(bool b) {
  separate();
  out_ += b ? "true" : "false";
  return *this;
}
JsonWriter& JsonWriter::null() {
  separate();
  out_ += "null";
  return *this;
}
JsonWriter& JsonWriter::raw(std::string_view json) {
  separate();
  out_ += json;
  return *this;
}

std::string http_date_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 206: return "Partial Content";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 408: return "Request Timeout";
    case 416: return "Range Not Satisfiable";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Error";
  }
}

}  // namespace hfi::testhub::util
