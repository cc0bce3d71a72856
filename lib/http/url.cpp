#include "http/url.hpp"

#include <algorithm>
#include <cctype>

#include "core/text.hpp"

namespace hfi::http {
namespace {

bool unreserved(unsigned char c) { return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~'; }

std::string encode(const std::string& text, bool keep_slash) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (unreserved(c) || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

size_t scheme_end(const std::string& url) {
  auto colon = url.find("://");
  if (colon == std::string::npos || colon == 0) return std::string::npos;
  for (size_t i = 0; i < colon; ++i)
    if (!std::isalpha(static_cast<unsigned char>(url[i])) && url[i] != '+' && url[i] != '-' && url[i] != '.')
      return std::string::npos;
  return colon;
}

}  // namespace

std::string origin_of(const std::string& url) {
  size_t colon = scheme_end(url);
  if (colon == std::string::npos) return {};
  std::string scheme = lowercase(url.substr(0, colon));
  size_t start = colon + 3;
  size_t end = url.find_first_of("/?#", start);
  std::string authority = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (auto at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  std::string host = authority, port;
  // IPv6 literals keep their brackets; the port follows the closing bracket.
  size_t port_colon = authority.rfind(':');
  if (port_colon != std::string::npos && authority.find(']', port_colon) == std::string::npos) {
    host = authority.substr(0, port_colon);
    port = authority.substr(port_colon + 1);
  }
  if (port.empty()) port = scheme == "https" ? "443" : scheme == "http" ? "80" : "";
  return scheme + "://" + lowercase(host) + ":" + port;
}

std::string resolve_location(const std::string& base, const std::string& location) {
  if (location.empty()) return base;
  if (scheme_end(location) != std::string::npos) return location;
  size_t colon = scheme_end(base);
  if (colon == std::string::npos) return location;
  if (location.rfind("//", 0) == 0) return base.substr(0, colon + 1) + location;
  size_t path_start = base.find('/', colon + 3);
  std::string root = path_start == std::string::npos ? base : base.substr(0, path_start);
  if (location[0] == '/') return root + location;
  std::string path = path_start == std::string::npos ? "/" : base.substr(path_start);
  path = path.substr(0, path.find_first_of("?#"));
  return root + path.substr(0, path.rfind('/') + 1) + location;
}

std::string encode_component(const std::string& text) { return encode(text, false); }

std::string encode_path(const std::string& path) { return encode(path, true); }

}  // namespace hfi::http
