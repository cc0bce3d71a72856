// What the Hub's answers mean to a user: an HTTP failure mapped onto an Error they can act on.
#pragma once

#include <string>

#include "core/error.hpp"
#include "http/http.hpp"
#include "source/hf_cache.hpp"
#include "source/hub_settings.hpp"

namespace hfi {

// Gated, missing or private repository, missing revision, rejected token, disabled repository,
// rate limit, network. `what` names the request ("repository info", "config.json"); the server's
// request id is quoted when present.
Error hub_error(const http::Response& response, const RepoRef& ref, const HubSettings& settings, const std::string& what);

}  // namespace hfi
