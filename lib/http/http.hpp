// The network behind one interface. A Transport runs HTTP requests concurrently on one set of
// connections; redirects, retries, timeouts and the rule that the token only goes to the Hub's own
// origin all live behind it. All of the program's concurrency is here: a caller that wants to act
// on an early answer does so in the completion handler, which may send follow-up requests into the
// same run. Only curl_transport.cpp sees libcurl.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hfi::http {

// Header names are stored lowercased (HTTP/2 sends them so anyway); the last value wins.
using Headers = std::map<std::string, std::string>;

struct Request {
  std::string url;
  bool head = false;
  // Bytes [offset, offset + length) of the resource. A server that ignores Range and answers 200
  // is read only up to offset + length, then the transfer is cut.
  std::optional<uint64_t> range_offset;
  uint64_t range_length = 0;
  // The range opens with its own length: a little-endian u64 N, then N bytes (a safetensors
  // header). Only 8 + N bytes are kept, and the transfer ends there: a 100 KB probe of a 74 KB
  // header neither stores nor waits for the tensor bytes behind it.
  bool length_prefixed = false;
  // Bodies larger than this end the transfer with `too_large` set (whole-file reads).
  uint64_t max_body = 64u << 20;
  // Attempts this request may make, retries included; 0: the client's (1 + max_retries). A read
  // that follows up a failed one of the same file passes on what the first left.
  int max_attempts = 0;
  // Seconds without a connection, or below the low-speed floor, before the attempt is cut; 0: the
  // client's. Metadata requests (HF_HUB_ETAG_TIMEOUT) and file reads (HF_HUB_DOWNLOAD_TIMEOUT) differ.
  long stall_timeout_s = 0;
};

struct Hop {
  int status = 0;
  std::string url;
  Headers headers;
};

struct Response {
  int status = 0;        // status of the last response in the redirect chain; 0 on transport failure
  std::string url;       // URL that produced it
  Headers headers;       // its headers
  std::vector<Hop> redirects;  // the 3xx responses followed on the way, first to last
  std::string body;      // the requested bytes (a range is cut out of a 200 body); error bodies capped
  bool range_honoured = false;  // a ranged request got 206
  bool too_large = false;       // the body went past max_body
  bool ended_at_length_prefix = false;  // a length_prefixed body holds all 8 + N bytes, fewer than asked
  std::optional<uint64_t> total_size;  // from Content-Range "/T", or Content-Length of a 200
  std::string transport_error;  // non-empty when no HTTP response came back at all
  std::string protocol_error;   // an answer that breaks HTTP's rules, e.g. a 206 for another range
  bool timed_out = false;
  int attempts = 0;
  // When retries were exhausted on a 429, how long the server asked us to wait.
  std::optional<int64_t> retry_after_ms;

  // First value of a header in the chain, starting at the Hub's first answer: X-Repo-Commit and
  // X-Linked-* are only on the Hub's redirect, never on the CDN's response.
  std::string first_header(const std::string& lowercase_name) const;
  std::string request_id() const;
};

struct Progress {
  std::string_view what;  // the batch's label, e.g. "shard headers"
  size_t done = 0;
  size_t total = 0;
  size_t round = 0;         // which run of this transport, from 1: each is a latency round or more
  uint64_t bytes_in = 0;    // response bodies received so far, over every run of the transport
};

// A request about to be tried again, for the user to see why a run is slow.
struct RetryNotice {
  int next_attempt = 0;  // 2 for the first retry
  int attempts = 0;      // how many the request may take in all
  long wait_ms = 0;
  std::string reason;  // "503 from the CDN", "timed out: ..."
};

struct ClientOptions {
  std::string token;         // sent as "Authorization: Bearer" to token_origin only
  std::string token_origin;  // "scheme://host:port" of the Hub endpoint
  long connect_timeout_ms = 10'000;
  // A transfer that moves fewer than `low_speed_bytes_per_s` bytes a second for `stall_timeout_s`
  // seconds is abandoned (and retried): a server that drips a byte now and then is cut as a silent
  // one is. Each attempt also has a deadline: six stall periods, plus its bytes at 64 KiB/s (the
  // Content-Length once the answer names it, else the most the request takes).
  long stall_timeout_s = 10;
  long low_speed_bytes_per_s = 512;
  // Every request ends within this many seconds of the transport's creation, answered or failed
  // as timed out; 0: no such limit.
  long run_deadline_s = 0;
  int max_retries = 5;
  long backoff_base_ms = 1'000;
  long backoff_max_ms = 8'000;
  long longest_wait_ms = 60'000;  // a Retry-After / RateLimit wait beyond this is not worth it
  int max_redirects = 10;
  size_t max_in_flight = 256;
  std::string user_agent;  // "; libcurl/<version>" is added to it
  std::string ca_bundle;  // empty: libcurl's default
  std::function<void(const Progress&)> progress;  // called as responses complete (follow-ups count too)
  std::function<void(const RetryNotice&)> on_retry;  // called as each retry is scheduled
};

class Transport {
 public:
  virtual ~Transport() = default;

  // What a completion handler may do during a run: send more requests on the same connections.
  class FollowUps {
   public:
    virtual ~FollowUps() = default;
    // Sends `request` now; its answer reaches the handler under the index returned.
    virtual size_t send(Request request) = 0;
  };
  // Called once per answered request, in the order answers complete. `index` is the request's
  // place in the run: the initial requests first, then each follow-up in the order it was sent.
  // The handler may take the response (move from it).
  using OnDone = std::function<void(size_t index, Response& response, FollowUps& follow_ups)>;

  // Runs `requests` concurrently, and every follow-up the handler sends, until all are answered.
  // `what` labels the run for progress reports ("metadata files", "shard headers").
  virtual void run(std::vector<Request> requests, std::string_view what, const OnDone& on_done) = 0;

  // The answers to `requests`, in order.
  std::vector<Response> perform(std::vector<Request> requests, std::string_view what);

  // HTTP requests sent so far, counting every redirect hop and retry.
  virtual size_t requests_sent() const = 0;
};

std::unique_ptr<Transport> make_curl_transport(ClientOptions options);

}  // namespace hfi::http
