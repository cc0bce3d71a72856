#include "source/blob_id.hpp"

#include <openssl/evp.h>

#include <memory>

namespace hfi {
namespace {

std::string hex_digest(const EVP_MD* md, std::string_view prefix, std::string_view bytes) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1 || EVP_DigestUpdate(ctx.get(), prefix.data(), prefix.size()) != 1 ||
      EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size()) != 1 || EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1)
    return {};
  constexpr const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

}  // namespace

bool bytes_match_etag(std::string_view bytes, const std::string& etag) {
  if (etag.size() == 40) {
    std::string header = "blob " + std::to_string(bytes.size());
    header.push_back('\0');
    return hex_digest(EVP_sha1(), header, bytes) == etag;
  }
  if (etag.size() == 64) return hex_digest(EVP_sha256(), {}, bytes) == etag;
  return false;
}

}  // namespace hfi
