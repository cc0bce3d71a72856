// The standard Hugging Face cache layout: $HF_HUB_CACHE/models--org--name/{refs,snapshots,blobs}.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/error.hpp"

namespace hfi {

struct RepoRef {
  std::string repo_id;   // "org/name"
  std::string revision;  // branch, tag or commit; "main" by default
};

// Parses "org/name", "org/name@rev" and https://huggingface.co/org/name[/tree/rev] URLs (also on the
// HF_ENDPOINT host); a revision in a URL is percent-decoded.
Result<RepoRef> parse_repo_ref(const std::string& text);

// HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface.
std::filesystem::path hf_home_dir();

// The hub cache directory: HF_HUB_CACHE, else HUGGINGFACE_HUB_CACHE, else HF_HOME/hub.
std::filesystem::path hub_cache_dir();

// Only a full 40-hex lowercase sha names a commit; anything else is a branch, tag or short sha.
bool is_commit_sha(const std::string& text);

// "models--org--name": the repository's folder in the cache.
std::string repo_folder_name(const std::string& repo_id);

struct CacheSnapshot {
  std::filesystem::path directory;  // .../snapshots/<commit>
  std::string commit;
};

// Finds the snapshot of `ref` in the cache, offline: a 40-hex revision is used as is, anything else
// goes through refs/<revision>. NotFound says what is missing and how to get it.
Result<CacheSnapshot> find_cache_snapshot(const std::filesystem::path& cache_dir, const RepoRef& ref);

}  // namespace hfi
