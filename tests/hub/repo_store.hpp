// The test hub's model of a repository: one commit with files, and every id the Hub would show
// for it, derived deterministically from the content.
//
// Ids (all lowercase hex):
//   blob id (regular file)   git blob sha1 of the content ("blob <len>\0" + bytes), as git and the Hub.
//   LFS sha256               a stand-in, NOT the sha256 of the (possibly multi-GB) virtual content:
//                            sha256 of "testhub-lfs\n<size>\n" followed by the prefix bytes.
//                            It is what X-Linked-Etag, lfs.oid / lfs.sha256 and the pointer carry.
//   blob id (LFS file)       git blob sha1 of the LFS pointer text (as on the Hub).
//   xet hash                 sha256 of "testhub-xet\n" + the LFS sha256; the CDN's ETag and `xetHash`.
//   directory oid            sha1 of "testhub-tree\n<commit>\n<dir path>" (stand-in for a git tree id).
//   commit                   sha1 of "testhub-commit\n<repo id>\n" then "<path>\0<blob id>\n" for every file
//                            in path order (a blob id stands for the content it hashes).
//   _id                      first 24 hex of sha1("testhub-repo\n<repo id>").
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hub/test_hub.hpp"

namespace hfi::testhub::detail {

struct RepoFile {
  std::string path;
  std::shared_ptr<const std::string> prefix;  // first bytes; the rest up to `size` are zeros
  uint64_t size = 0;
  bool lfs = false;
  std::string blob_id;  // 40 hex
  std::string sha256;   // LFS only
  std::string xet_hash; // LFS only
  std::string pointer;  // LFS only: the git-lfs pointer text served by /raw/
};

struct SafetensorsTotals {
  std::map<std::string, uint64_t> parameters;  // dtype -> element count (a scalar counts 1)
  uint64_t total = 0;
};

struct Repo {
  std::string id;
  std::string mongo_id;
  std::string commit;
  std::map<std::string, RepoFile> files;  // by path
  std::optional<SafetensorsTotals> safetensors;
  std::string config_json;  // {"architectures":..,"model_type":..} from config.json, or ""
  uint64_t used_storage = 0;
};

inline constexpr const char* kLastModified = "2024-05-01T12:00:00.000Z";
inline constexpr const char* kCreatedAt = "2024-04-01T12:00:00.000Z";

// Files ending in .safetensors/.bin/.gguf/.pt/.pth are LFS files in fixture repos.
bool is_lfs_name(const std::string& path);

std::shared_ptr<const Repo> make_repo(const std::string& repo_id, const std::map<std::string, VirtualFile>& files);

// Every <org>/<name> directory under `root` that holds files (fixtures/tools excepted). A file
// X.safetensors.header.json becomes the virtual file X.safetensors. Cached per root path.
std::shared_ptr<const std::map<std::string, std::shared_ptr<const Repo>>> load_fixture_repos(
    const std::filesystem::path& root);

// A branch, tag, PR ref, full or short (>= 7 hex) commit; "HEAD" only when `allow_head`.
std::optional<std::string> resolve_revision(const Repo& repo, const std::string& rev, bool allow_head);

struct TreeEntry {
  bool directory = false;
  std::string path;
  const RepoFile* file = nullptr;  // for files
  std::string oid;                 // for directories
};
// nullopt when `dir` is not a directory of the repo ("" is the root).
std::optional<std::vector<TreeEntry>> list_tree(const Repo& repo, const std::string& dir, bool recursive);

}  // namespace hfi::testhub::detail
