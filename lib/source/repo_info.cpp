#include "source/repo_info.hpp"

#include "core/json.hpp"
#include "source/hf_cache.hpp"
#include "source/hub_cache.hpp"

namespace hfi {
namespace {

// Reads `siblings` (model info) or a tree page's entries into FileEntry values; false if a size is
// missing. Paths that are unsafe to use as file names are dropped.
bool read_entry(const Json& item, const char* path_key, std::vector<FileEntry>& out) {
  const Json* path = item.find(path_key);
  if (!path || !path->is_string() || !safe_repo_path(path->as_string())) return true;
  const Json* type = item.find("type");
  if (type && type->is_string() && type->as_string() != "file") return true;
  std::optional<uint64_t> size;
  if (const Json* lfs = item.find("lfs"); lfs && lfs->is_object())
    if (const Json* s = lfs->find("size"); s) size = s->as_uint();
  if (!size)
    if (const Json* s = item.find("size"); s) size = s->as_uint();
  out.push_back({path->as_string(), size.value_or(0)});
  return size.has_value();
}

}  // namespace

Result<RepoInfo> parse_repo_info(const std::string& body, const std::string& url) {
  auto doc = parse_json(body, url);
  if (!doc) return doc.error();
  if (!doc->is_object()) return malformed(url, "", "repository info is not a JSON object");
  RepoInfo info;
  const Json* sha = doc->find("sha");
  if (!sha || !sha->is_string() || !is_commit_sha(sha->as_string()))
    return malformed(url, "sha", "repository info has no 40-hex commit sha");
  info.commit = sha->as_string();
  // No siblings at all (a mirror that leaves them out) counts as unknown sizes: the tree API lists.
  if (const Json* siblings = doc->find("siblings"); siblings && siblings->is_array()) {
    for (const auto& item : siblings->items())
      if (item.is_object() && !read_entry(item, "rfilename", info.files)) info.sizes_known = false;
  } else {
    info.sizes_known = false;
  }
  if (const Json* gated = doc->find("gated"); gated && gated->is_string()) info.gated = gated->as_string();
  if (const Json* priv = doc->find("private"); priv && priv->is_bool()) info.is_private = priv->as_bool();
  return info;
}

std::string next_link(const http::Headers& headers) {
  auto it = headers.find("link");
  if (it == headers.end()) return {};
  // <url>; rel="next", <url>; rel="prev"
  const std::string& v = it->second;
  for (size_t open = v.find('<'); open != std::string::npos; open = v.find('<', open + 1)) {
    size_t close = v.find('>', open);
    if (close == std::string::npos) break;
    size_t end = v.find('<', close);
    std::string params = v.substr(close + 1, end == std::string::npos ? std::string::npos : end - close - 1);
    if (params.find("rel=\"next\"") != std::string::npos || params.find("rel=next") != std::string::npos)
      return v.substr(open + 1, close - open - 1);
  }
  return {};
}

Status parse_tree_page(const std::string& body, const std::string& url, std::vector<FileEntry>& files) {
  auto doc = parse_json(body, url);
  if (!doc) return doc.error();
  if (!doc->is_array()) return malformed(url, "", "tree listing is not a JSON array");
  for (const auto& item : doc->items())
    if (item.is_object() && !read_entry(item, "path", files)) return malformed(url, "size", "tree entry without a size");
  return Ok{};
}

}  // namespace hfi
