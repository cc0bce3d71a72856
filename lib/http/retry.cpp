#include "http/retry.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace hfi::http {
namespace {

// Reads the digits that follow `key` (e.g. "t=") in a structured-field header value.
std::optional<long> field_number(const std::string& value, const std::string& key) {
  for (size_t pos = value.find(key); pos != std::string::npos; pos = value.find(key, pos + 1)) {
    if (pos > 0 && value[pos - 1] != ';' && value[pos - 1] != ' ' && value[pos - 1] != ',') continue;
    size_t i = pos + key.size();
    long n = 0;
    size_t digits = 0;
    while (i < value.size() && std::isdigit(static_cast<unsigned char>(value[i])) && digits < 9) {
      n = n * 10 + (value[i++] - '0');
      ++digits;
    }
    if (digits > 0) return n;
  }
  return std::nullopt;
}

}  // namespace

bool retryable_status(int status) {
  return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

std::optional<long> server_requested_wait_ms(const Headers& headers) {
  if (auto it = headers.find("ratelimit"); it != headers.end()) {
    auto remaining = field_number(it->second, "r=");
    auto reset = field_number(it->second, "t=");
    if (remaining && *remaining == 0 && reset) return (*reset + 1) * 1000;
  }
  if (auto it = headers.find("retry-after"); it != headers.end()) {
    if (auto seconds = parse_decimal(it->second); seconds && *seconds < 1'000'000'000)
      return (static_cast<long>(*seconds) + 1) * 1000;
  }
  return std::nullopt;
}

long backoff_ms(int attempt, long base, long max, double jitter) {
  long delay = base;
  for (int i = 1; i < attempt && delay < max; ++i) delay *= 2;
  delay = std::min(delay, max);
  return static_cast<long>(static_cast<double>(delay) * std::clamp(jitter, 0.8, 1.2));
}

}  // namespace hfi::http
