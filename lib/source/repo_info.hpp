// The Hub's JSON about a repository, parsed: the model info (commit sha, files and sizes, gated,
// private) and the tree API's pages, with their Link pagination. Pure functions over bytes.
#pragma once

#include <string>
#include <vector>

#include "core/error.hpp"
#include "http/http.hpp"
#include "source/source.hpp"

namespace hfi {

struct RepoInfo {
  std::string commit;
  std::vector<FileEntry> files;
  bool sizes_known = true;
  std::string gated;  // "", "auto" or "manual"
  bool is_private = false;
};

// GET /api/models/{id}/revision/{rev}?blobs=true. Paths unsafe as file names are dropped;
// sizes_known is false when a sibling carries no size (mirrors without blobs=true).
Result<RepoInfo> parse_repo_info(const std::string& body, const std::string& url);

// One page of GET /api/models/{id}/tree/{rev}?recursive=true, appended to `files`.
Status parse_tree_page(const std::string& body, const std::string& url, std::vector<FileEntry>& files);

// The rel="next" URL of a Link header, or empty.
std::string next_link(const http::Headers& headers);

}  // namespace hfi
