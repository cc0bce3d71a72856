// How to reach the Hub, from the environment the Hugging Face tools share: HF_ENDPOINT, the token
// (HF_TOKEN, HUGGING_FACE_HUB_TOKEN, HF_TOKEN_PATH, $HF_HOME/token), HF_HUB_OFFLINE, the cache
// location, HF_HUB_DOWNLOAD_TIMEOUT and a custom CA bundle for TLS-inspecting proxies. Proxies
// themselves are read by libcurl from http_proxy / https_proxy / all_proxy / no_proxy.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/error.hpp"

namespace hfi {

struct HubSettings {
  std::string endpoint = "https://huggingface.co";  // no trailing '/'
  std::string token;
  std::string token_source;  // where the token came from, for messages; never the token itself
  bool offline = false;
  std::filesystem::path cache_dir;
  long timeout_s = 10;  // stall timeout per file read (HF_HUB_DOWNLOAD_TIMEOUT, --timeout)
  // Stall timeout of metadata requests: the repository info, the listing and the small JSON
  // files (HF_HUB_ETAG_TIMEOUT, 10 s by default as in huggingface_hub; --timeout sets both).
  long metadata_timeout_s = 10;
  long metadata_timeout() const { return metadata_timeout_s; }
  int retries = 5;
  long deadline_s = 0;  // of the whole run, per target; 0: run_deadline_s()

  // Unless set, 24 stall timeouts (4 minutes at the default): room for the retries of a few
  // sequential rounds, while a server that holds every request still ends the run.
  long run_deadline_s() const { return deadline_s > 0 ? deadline_s : 24 * timeout_s; }
  std::string ca_bundle;
  // A timeout variable set to something other than whole seconds from 1 to 3600 (huggingface_hub
  // stops on such a value too): a usage error once the network is used, naming the variable.
  std::optional<Error> timeout_error;
};

// "1", "ON", "YES", "TRUE" in any case, as huggingface_hub reads flags.
bool env_flag(const char* name);

HubSettings hub_settings_from_environment();

// A token that could not be sent as one header value (CR, LF or another control character) is a
// usage error; the message names where it came from, never the token.
Status check_token(const HubSettings& settings);

}  // namespace hfi
