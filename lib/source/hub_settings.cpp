#include "source/hub_settings.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "source/hf_cache.hpp"

namespace hfi {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// A token is a few dozen bytes. Only a regular file is opened (a FIFO would block the run until
// something writes to it), and only its first few KB are read.
std::string read_token_file(const std::filesystem::path& path) {
  constexpr size_t kMostTokenBytes = 4096;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return {};
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::string text(kMostTokenBytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return trim(text.substr(0, text.find('\0')));
}

}  // namespace

bool env_flag(const char* name) {
  std::string v = env(name);
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return v == "1" || v == "ON" || v == "YES" || v == "TRUE";
}

HubSettings hub_settings_from_environment() {
  HubSettings s;
  if (std::string e = trim(env("HF_ENDPOINT")); !e.empty()) s.endpoint = e;
  while (!s.endpoint.empty() && s.endpoint.back() == '/') s.endpoint.pop_back();
  s.offline = env_flag("HF_HUB_OFFLINE") || env_flag("TRANSFORMERS_OFFLINE");
  s.cache_dir = hub_cache_dir();
  if (!env_flag("HF_HUB_DISABLE_IMPLICIT_TOKEN")) {
    if (std::string t = trim(env("HF_TOKEN")); !t.empty()) {
      s.token = t;
      s.token_source = "HF_TOKEN";
    } else if (std::string legacy = trim(env("HUGGING_FACE_HUB_TOKEN")); !legacy.empty()) {
      s.token = legacy;
      s.token_source = "HUGGING_FACE_HUB_TOKEN";
    } else {
      std::filesystem::path file = env("HF_TOKEN_PATH").empty() ? hf_home_dir() / "token" : std::filesystem::path(env("HF_TOKEN_PATH"));
      s.token = read_token_file(file);
      if (!s.token.empty()) s.token_source = "the token file " + file.string();
    }
  }
  for (auto [name, seconds] : {std::pair{"HF_HUB_DOWNLOAD_TIMEOUT", &s.timeout_s}, std::pair{"HF_HUB_ETAG_TIMEOUT", &s.metadata_timeout_s}}) {
    std::string text = trim(env(name));
    if (text.empty()) continue;  // unset or empty: the default, as in huggingface_hub
    if (auto t = parse_decimal(text); t && *t > 0 && *t <= 3600) {
      *seconds = static_cast<long>(*t);
    } else if (!s.timeout_error) {
      s.timeout_error = Error{ErrorKind::Usage, name, "", "'" + printable(text.substr(0, 40)) + "' is not a timeout",
                              "give whole seconds from 1 to 3600, or unset it for the default of 10"};
    }
  }
  for (const char* name : {"CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"})
    if (std::string v = env(name); !v.empty()) {
      s.ca_bundle = v;
      break;
    }
  return s;
}

Status check_token(const HubSettings& settings) {
  for (unsigned char c : settings.token)
    if (c < 0x20 || c == 0x7f)
      // Sent as it is, a CR or LF would end the Authorization header and start another one.
      return Error{ErrorKind::Usage, settings.token_source, "",
                   "the access token holds a control character (a line break?), so it was not sent; the token itself is not shown",
                   "copy the token again from https://huggingface.co/settings/tokens"};
  return Ok{};
}

}  // namespace hfi
