// HTTP/2 over TLS on one accepted, non-blocking socket: the handshake, nghttp2's framing, and
// response bodies streamed from Body windows. The event server owns the socket, its epoll entry
// and its timers; it calls in when the socket is readable or writable and answers streams through
// respond(). Everything runs on the server's thread.
//
// Mapping of the HTTP/1.1 server's behaviours: a Body whose send_limit is below its length ends
// with RST_STREAM (INTERNAL_ERROR) where HTTP/1.1 closes the connection; "Connection: close" on a
// response is ignored (HTTP/2 has no such header); requests reach the handler with version
// "HTTP/2" and a Host header taken from :authority.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "hub/event_server.hpp"

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;
typedef struct nghttp2_session nghttp2_session;

namespace hfi::testhub::http {

// One request/response exchange on a connection.
struct H2Stream {
  Request request;
  bool too_large = false;  // the request body passed max_body_bytes: answered 413 when complete
  bool answered = false;   // a response was submitted; later ones are ignored
  Body body;               // the response body being sent
  uint64_t sent = 0;       // body bytes handed to nghttp2
  uint64_t to_send = 0;    // min(length, send_limit)
};

class H2Session {
 public:
  using OnRequest = std::function<void(int32_t stream, Request&&)>;

  // max_streams: SETTINGS_MAX_CONCURRENT_STREAMS; a client wanting more opens another connection.
  H2Session(SSL_CTX* ctx, int fd, uint32_t max_streams, size_t max_body_bytes, OnRequest on_request);
  ~H2Session();
  H2Session(const H2Session&) = delete;
  H2Session& operator=(const H2Session&) = delete;

  // Reads what the socket holds, hands complete requests to on_request, writes what is pending.
  // False when the connection is over (closed by the client, broken, or not HTTP/2 over TLS).
  bool on_readable();
  // Writes pending frames as far as the socket takes them. False when the connection is over.
  bool flush();
  // Output waits for the socket: the caller watches EPOLLOUT and calls flush() when writable.
  bool blocked() const { return blocked_; }
  // Answers a stream; the caller then flushes. Ignored when the stream is gone (the client reset it).
  void respond(int32_t stream, bool head, Response response);
  size_t open_streams() const { return streams_.size(); }

 private:
  friend struct H2Callbacks;
  bool handshake();
  bool read_tls();
  bool write_tls();
  void dispatch_ready();

  SSL* ssl_ = nullptr;
  nghttp2_session* session_ = nullptr;
  size_t max_body_bytes_;
  OnRequest on_request_;
  bool handshaken_ = false;
  bool blocked_ = false;
  bool broken_ = false;
  std::string pending_;      // frames from nghttp2 not yet taken by SSL_write
  size_t retry_length_ = 0;  // a write OpenSSL asked to repeat with the same length
  std::map<int32_t, H2Stream> streams_;
  std::vector<int32_t> ready_;  // streams whose request is complete, in arrival order
};

}  // namespace hfi::testhub::http
