// Internal: the state behind TestHub and the per-request context its handlers share.
#pragma once

#include <array>
#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <optional>

#include "hub/event_server.hpp"
#include "hub/hub_util.hpp"
#include "hub/repo_store.hpp"
#include "hub/test_hub.hpp"
#include "hub/tls_context.hpp"

namespace hfi::testhub {

namespace detail {

// What one request is, as the handlers see it. Built when the request arrives, and put in a
// thread_local slot while it is routed: each origin's server runs every handler on its one thread.
struct RequestContext {
  std::string origin;     // "hub" / "cdn"
  std::string raw_path;   // as received, undecoded, no query
  std::string raw_query;  // as received, without '?'
  std::string target;
  std::string range;
  std::string authorization;
  std::string user_agent;
  bool head = false;
  bool tls = false;             // came over TLS: a 302 to the CDN points at its TLS listener
  std::string protocol;         // "HTTP/1.1", "HTTP/2", ...
  uint64_t connection = 0;
  std::chrono::steady_clock::time_point received;
  bool ignore_range = false;    // IgnoreRange fault
  bool reset_mid_body = false;  // ResetMidBody fault
  std::chrono::milliseconds drip_interval{0};  // Drip fault: a byte of the body per interval
  bool long_redirect_body = false;  // LongRedirectBody fault
  bool alter_body = false;          // AlterBody fault
  bool duplicate_siblings = false;  // DuplicateSiblings fault
  std::shared_ptr<std::atomic<uint64_t>> body_bytes;
};

// Where a repo-scoped request is going, after the id has been taken off the path.
struct RepoRequest {
  std::string type = "model";  // "model", "dataset", "space"
  std::string id;              // decoded repo id as written in the URL
  std::string id_raw;          // the id's URL segments as received
  std::vector<std::string> rest;  // raw segments after the id
};

}  // namespace detail

struct TestHub::Impl {
  explicit Impl(Options o);
  ~Impl();

  Options opts;
  std::unique_ptr<http::EventServer> hub_server, cdn_server;
  int hub_port = 0, cdn_port = 0;
  std::string endpoint, cdn_origin;
  std::shared_ptr<const http::TlsContext> tls;  // with Options::tls
  std::string tls_endpoint, cdn_tls_origin;
  // The addresses above are known only once the servers listen, after their threads started.
  // Set once they are written; the servers' threads wait for it before their first request
  // (no client can know the address sooner, but ThreadSanitizer cannot know that).
  std::atomic<bool> addresses_published{false};
  void wait_for_addresses() const { addresses_published.wait(false, std::memory_order_acquire); }
  // Origin written into 302 Locations: cdn_origin, or a TLS proxy in front of it.
  mutable std::mutex cdn_public_mutex;
  std::string cdn_public_origin;
  std::string signing_secret;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

  mutable std::shared_mutex repos_mutex;
  std::map<std::string, std::shared_ptr<const detail::Repo>> repos;  // by id (models)
  struct BlobRef {
    std::shared_ptr<const detail::Repo> repo;
    const detail::RepoFile* file = nullptr;
  };
  std::map<std::string, BlobRef> cdn_blobs;  // LFS sha256 -> content

  std::mutex faults_mutex;
  std::vector<FaultRule> faults;

  // A request is logged as soon as it is routed (before its body is sent), so a client that got
  // its response always finds it; body_bytes keeps counting while the body goes out.
  struct LogEntry {
    RequestRecord record;
    std::shared_ptr<std::atomic<uint64_t>> body_bytes;
  };
  mutable std::mutex log_mutex;
  std::vector<LogEntry> log;
  std::vector<RequestRecord> snapshot_log() const;

  std::atomic<uint64_t> request_counter{0};
  std::array<std::atomic<uint64_t>, 3> bucket_counts{};  // api, resolvers, pages

  // Lifecycle and plumbing (test_hub.cpp).
  std::unique_ptr<http::EventServer> start(const std::string& origin, int& port);
  void install_repo(std::shared_ptr<const detail::Repo> repo);
  std::shared_ptr<const detail::Repo> find_repo(const std::string& id) const;
  void clear_log();  // also restarts the RateLimit counters
  void clear_fault_rules();  // false when the hub is stopping
  std::optional<FaultRule> take_fault(const std::string& origin, const std::string& raw_path);
  // Every request: the control routes at once; anything else after the latency, through the
  // fault rules, then routed, stamped with the common headers, logged and answered.
  void on_request(const std::string& origin, http::Request&& req, http::Responder responder);
  void answer(const std::string& origin, detail::RequestContext ctx, const http::Request& req,
              http::Responder responder);
  // Every routed answer (faults included) leaves here: common headers, the log, the socket.
  void deliver(const std::string& origin, const http::Request& req, http::Response res, http::Responder responder);
  bool serve_control(const http::Request& req, http::Responder responder);  // false: not a control route
  void log_routed(const std::string& origin, const http::Request& req, const http::Response& res);
  void log_unrouted(const std::string& origin, const http::Request& req, int status);
  uint64_t since_start(std::chrono::steady_clock::time_point t) const {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(t - started).count());
  }
  void add_common_headers(const http::Request& req, http::Response& res, const std::string& origin);

  // Bodies (hub_files.cpp). Every body is a window of a virtual file that the server streams, so
  // the bytes handed to the socket can be counted and a ResetMidBody fault can cut them.
  static void put(http::Response& res, const std::string& key, const std::string& value);
  void send_text(http::Response& res, int status, std::string body, const std::string& content_type);
  void send_bytes(http::Response& res, int status, std::shared_ptr<const std::string> prefix, uint64_t first,
                  uint64_t length, const std::string& content_type);
  // 200/206/416 for a (virtual) body of `size` bytes, per the request's Range.
  void send_ranged(const http::Request& req, http::Response& res, std::shared_ptr<const std::string> prefix,
                   uint64_t size, const std::string& content_type);
  void send_error(http::Response& res, int status, const std::string& code, const std::string& message);

  // Hub routes.
  void route_hub(const http::Request& req, http::Response& res);
  void route_cdn(const http::Request& req, http::Response& res);
  // Returns the repo when the caller may read it (files: also past the gate); otherwise writes the
  // Hub's error response and returns null.
  std::shared_ptr<const detail::Repo> authorize(const http::Request& req, http::Response& res,
                                                const detail::RepoRequest& rr, bool files);
  bool check_token(const http::Request& req, http::Response& res);  // false: 401 written
  bool redirect_renamed(http::Response& res, const detail::RepoRequest& rr, const std::string& before,
                        const std::string& after);
  void serve_file_route(const http::Request& req, http::Response& res, detail::RepoRequest rr,
                        const std::string& verb);
  void serve_resolve_cache(const http::Request& req, http::Response& res, const std::vector<std::string>& segs);
  void serve_regular(const http::Request& req, http::Response& res, const detail::Repo& repo,
                     const detail::RepoFile& file);
  void redirect_to_cdn(http::Response& res, const detail::Repo& repo, const detail::RepoFile& file);
  void entry_not_found(http::Response& res, const detail::Repo& repo);
  void revision_not_found(http::Response& res, const std::string& rev);

  // API routes (hub_api.cpp).
  void serve_api(const http::Request& req, http::Response& res, const std::string& type,
                 const std::vector<std::string>& segs);
  void serve_model_info(const http::Request& req, http::Response& res, const detail::Repo& repo,
                        const std::string& commit);
  void serve_tree(const http::Request& req, http::Response& res, const detail::Repo& repo,
                  const std::string& commit, const std::string& dir);
  void serve_refs(const http::Request& req, http::Response& res, const detail::Repo& repo);
};

namespace detail {
RequestContext& current();
// Splits "{rev}/{path...}" segments: raw "refs/pr/N", "refs/convert/X" take three segments,
// anything else one (percent-decoded, so "refs%2Fpr%2F1" works). The path is percent-decoded.
std::pair<std::string, std::string> split_revision(const std::vector<std::string>& segs, size_t from);
std::string join(const std::vector<std::string>& segs, size_t from, size_t to);
}  // namespace detail

}  // namespace hfi::testhub
