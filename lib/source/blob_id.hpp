// Whether bytes read back from the cache are the ones the Hub named. The Hub's ETag for a file is
// its identity: the git blob id (SHA-1 of "blob <size>\0" and the bytes, 40 hex digits) for a
// file kept in git, the SHA-256 of the bytes (64 hex digits) for one kept in LFS. The cache names
// each blob by that ETag, so a blob can be checked against its own name.
#pragma once

#include <string>
#include <string_view>

namespace hfi {

// True when `bytes` hash to `etag` (40 or 64 lower-case hex digits); false for any other name.
bool bytes_match_etag(std::string_view bytes, const std::string& etag);

}  // namespace hfi
