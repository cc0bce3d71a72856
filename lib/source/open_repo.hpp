// Loads a repository the cheapest way the settings allow:
//   offline             the cache only, and a clear list of what it lacks;
//   a cached commit     no request at all;
//   a cached branch     one request (the repository info) to learn where the branch points now;
//   anything else       the Hub in two rounds (hub_source.hpp), filling the cache on the way.
#pragma once

#include "http/http.hpp"
#include "source/hf_cache.hpp"
#include "source/hub_settings.hpp"
#include "source/snapshot.hpp"

namespace hfi {

// `transport` may be null when settings.offline is set.
Result<Snapshot> load_repo(const RepoRef& ref, const HubSettings& settings, http::Transport* transport,
                           const LoadOptions& options = {});

}  // namespace hfi
