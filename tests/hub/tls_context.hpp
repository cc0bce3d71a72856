// The test hub's TLS identity: a fresh P-256 key and a self-signed certificate for 127.0.0.1,
// made in memory when the hub starts (no key files, no openssl command). Clients trust it through
// certificate_pem(), e.g. written to a file named by CURL_CA_BUNDLE.
//
// ALPN selects "h2" and nothing else: the hub speaks HTTP/2 over TLS, as the real Hub and its CDN
// do, and HTTP/1.1 in the clear. A client that does not offer h2 fails the handshake.
#pragma once

#include <string>

typedef struct ssl_ctx_st SSL_CTX;

namespace hfi::testhub::http {

class TlsContext {
 public:
  TlsContext();  // throws std::runtime_error naming the OpenSSL step that failed
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  SSL_CTX* get() const { return ctx_; }
  const std::string& certificate_pem() const { return pem_; }

 private:
  SSL_CTX* ctx_ = nullptr;
  std::string pem_;
};

}  // namespace hfi::testhub::http
