#include "hub/tls_context.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <stdexcept>

namespace hfi::testhub::http {

namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

[[noreturn]] void fail(const char* step) {
  char detail[256] = "";
  ERR_error_string_n(ERR_get_error(), detail, sizeof detail);
  throw std::runtime_error(std::string("testhub TLS: ") + step + " failed: " + detail);
}

void add_extension(X509* cert, int nid, const char* value) {
  X509V3_CTX v3;
  X509V3_set_ctx_nodb(&v3);
  X509V3_set_ctx(&v3, cert, cert, nullptr, nullptr, 0);
  ExtPtr ext(X509V3_EXT_conf_nid(nullptr, &v3, nid, value));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) fail("adding a certificate extension");
}

// Self-signed, valid from an hour ago for two days, usable both as its own trust anchor
// (CA:TRUE, as `openssl req -x509` makes it) and as the server certificate for 127.0.0.1.
CertPtr make_certificate(EVP_PKEY* key) {
  CertPtr cert(X509_new());
  if (!cert) fail("X509_new");
  X509_set_version(cert.get(), X509_VERSION_3);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 2 * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  add_extension(cert.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_extension(cert.get(), NID_subject_alt_name, "IP:127.0.0.1");
  if (X509_sign(cert.get(), key, EVP_sha256()) == 0) fail("signing the certificate");
  return cert;
}

int select_h2(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in, unsigned int inlen, void*) {
  static const unsigned char kOffered[] = {2, 'h', '2'};  // length-prefixed, as ALPN lists are
  unsigned char* chosen = nullptr;
  if (SSL_select_next_proto(&chosen, outlen, kOffered, sizeof kOffered, in, inlen) != OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_ALERT_FATAL;
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

}  // namespace

TlsContext::TlsContext() {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) fail("generating a P-256 key");
  CertPtr cert = make_certificate(key.get());

  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert.get()) != 1) fail("writing the certificate as PEM");
  char* data = nullptr;
  long size = BIO_get_mem_data(bio.get(), &data);
  pem_.assign(data, static_cast<size_t>(size));

  ctx_ = SSL_CTX_new(TLS_server_method());
  if (!ctx_) fail("SSL_CTX_new");
  SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
  if (SSL_CTX_use_certificate(ctx_, cert.get()) != 1 || SSL_CTX_use_PrivateKey(ctx_, key.get()) != 1)
    fail("installing the key and certificate");
  // RFC 9113 §9.2: TLS 1.2 connections for HTTP/2 must not renegotiate.
  SSL_CTX_set_options(ctx_, SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_mode(ctx_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_alpn_select_cb(ctx_, select_h2, nullptr);
}

TlsContext::~TlsContext() {
  if (ctx_) SSL_CTX_free(ctx_);
}

}  // namespace hfi::testhub::http
