// A small HTTP/1.1 server for the test hub, with HTTP/2 over TLS on a second port when asked
// (hub/h2_session.*): one thread, one epoll set, timers for injected
// latency. cpp-httplib's server gives every connection its own thread, which polls an idle socket
// every few milliseconds; with 300+ connections on 2 cores that cost more CPU than the work itself
// and added 80-100 ms to a burst of 163 parallel reads. Here a waiting request costs a timer entry,
// and an idle connection costs nothing until it becomes readable.
//
// Scope: what the Hub look-alike needs and no more. Requests with Content-Length bodies
// (no chunked uploads), keep-alive and pipelining one request at a time, bodies that are a prefix
// followed by zero bytes (so a 2^40-byte file costs its prefix), a byte budget to cut a body
// short, and handlers that answer later on the same thread. Test scaffolding: setup errors throw.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hfi::testhub::http {

struct Header {
  std::string name, value;
};

// Case-insensitive header list; the first match wins on lookup.
struct HeaderList {
  std::vector<Header> items;
  const std::string* find(std::string_view name) const;
  std::string get(std::string_view name) const;  // "" when absent
  bool has(std::string_view name) const { return find(name) != nullptr; }
  void set(std::string_view name, std::string value);  // replaces every existing value
  void erase(std::string_view name);
};

struct Request {
  std::string method;   // "GET", "HEAD", "POST", ...
  std::string target;   // as received: path and query, undecoded
  std::string version;  // "HTTP/1.1", "HTTP/1.0" or "HTTP/2"
  bool tls = false;     // arrived on the TLS listener
  uint64_t connection = 0;  // the server's id for the connection it came on
  HeaderList headers;
  std::string body;
  std::string get_header_value(std::string_view name) const { return headers.get(name); }
  bool has_header(std::string_view name) const { return headers.has(name); }
};

// A body is the window [first, first + length) of a virtual file: `prefix`, then zero bytes.
struct Body {
  std::shared_ptr<const std::string> prefix;  // null: zeros only
  uint64_t first = 0;
  uint64_t length = 0;  // what Content-Length announces
  // Bytes actually sent before the connection is closed; below `length` it cuts the body short.
  uint64_t send_limit = std::numeric_limits<uint64_t>::max();
  // Above zero: one byte at a time, this long apart (HTTP/1.1; a server that drips its answer).
  std::chrono::milliseconds drip_interval{0};
  // Counts the bytes handed to the socket (may be null).
  std::shared_ptr<std::atomic<uint64_t>> counter;
};

struct Response {
  int status = 200;
  HeaderList headers;  // Content-Length is written by the server from body.length
  Body body;
  bool has_header(std::string_view name) const { return headers.has(name); }
};

class EventServer;
class TlsContext;

// The right to answer one request. Copyable; every call must be made on the server's thread
// (inside the handler or a callback it scheduled). A request that is never answered stays open
// until the client leaves or the server stops, which is how a hanging server is simulated.
class Responder {
 public:
  void send(Response response) const;
  // Runs `then` on the server's thread after `delay`, unless the server stops first.
  void after(std::chrono::milliseconds delay, std::function<void(Responder)> then) const;
  bool head() const { return head_; }

 private:
  friend class EventServer;
  Responder(EventServer* server, uint64_t connection, int32_t stream, bool head)
      : server_(server), connection_(connection), stream_(stream), head_(head) {}
  EventServer* server_;
  uint64_t connection_;
  int32_t stream_;  // HTTP/2 stream id; 0 on HTTP/1.x
  bool head_;
};

struct ServerSettings {
  std::chrono::milliseconds keep_alive_timeout{2000};  // idle connection between requests
  std::chrono::milliseconds read_timeout{5000};        // a request head or body that stalls
  std::chrono::milliseconds write_timeout{5000};       // a client that stops reading
  size_t max_requests_per_connection = 1000;
  size_t max_head_bytes = 64 * 1024;
  size_t max_body_bytes = 1024 * 1024;
  // When set, start() also opens a TLS listener that speaks HTTP/2 (see hub/h2_session.hpp).
  std::shared_ptr<const TlsContext> tls;
  // Streams one HTTP/2 connection carries at once: 100, the least RFC 9113 §6.5.2 recommends and
  // nghttp2's default.
  uint32_t h2_max_concurrent_streams = 100;
};

class EventServer {
 public:
  // Called on the server's thread for every well-formed request.
  using Handler = std::function<void(Request&&, Responder)>;
  // Called for a request the server answered itself (malformed, too large): what was parsed of it
  // (possibly nothing) and the status sent.
  using RejectHook = std::function<void(const Request&, int status)>;

  EventServer(ServerSettings settings, Handler handler, RejectHook on_reject);
  ~EventServer();  // stop()
  EventServer(const EventServer&) = delete;
  EventServer& operator=(const EventServer&) = delete;

  // Binds 127.0.0.1 on an ephemeral port, starts the thread, returns the port.
  int start();
  // The TLS listener's port once started with settings.tls; 0 without.
  int tls_port() const;
  // Closes every connection and joins the thread; pending callbacks are dropped. Idempotent.
  void stop();

  struct Impl;

 private:
  friend class Responder;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hfi::testhub::http
