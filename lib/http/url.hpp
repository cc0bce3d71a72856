// URL pieces the client needs without a URL library: origins for the token rule, Location
// resolution for manual redirects, and the Hub's percent-encoding conventions.
#pragma once

#include <string>

namespace hfi::http {

// "scheme://host:port", lowercased, with the default port made explicit; empty if not absolute.
std::string origin_of(const std::string& url);

// Resolves a Location header against the URL that answered with it (RFC 3986 cases that occur in
// practice: absolute, scheme-relative, absolute path, relative path).
std::string resolve_location(const std::string& base, const std::string& location);

// Everything but RFC 3986 unreserved characters becomes %XX. Used for revisions: refs/pr/1 ->
// refs%2Fpr%2F1, as huggingface_hub sends it.
std::string encode_component(const std::string& text);

// Same, but '/' separates segments and stays.
std::string encode_path(const std::string& path);

}  // namespace hfi::http
