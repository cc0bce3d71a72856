// A Hugging Face Hub look-alike on loopback for end-to-end tests: two real HTTP servers on
// 127.0.0.1, the hub origin (API, resolve, raw, resolve-cache) and a separate "CDN" origin that
// serves LFS bytes behind signed URLs. Behaviour follows hub-protocol.md §10; the stand-ins
// it uses for hashes are described in hub/repo_store.hpp, the rest in tests/hub/README.md.
//
// Test scaffolding: misuse throws, and every response is deterministic except the request ids,
// the CDN signature expiry and the RateLimit counters.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace hfi::testhub {

struct RequestRecord {
  std::string origin;         // "hub" or "cdn"
  std::string method;         // "GET" / "HEAD"
  std::string path;           // request path, as received (not decoded), without query
  std::string target;         // path + "?" + query as received
  std::string range;          // Range header or ""
  std::string authorization;  // Authorization header or ""
  std::string user_agent;     // User-Agent header or ""
  int status = 0;
  uint64_t body_bytes = 0;    // body bytes actually handed to the socket (short when the client aborted)
  std::string protocol;       // "HTTP/1.1", "HTTP/1.0" or "HTTP/2"
  uint64_t connection = 0;    // which connection of its origin carried it (ids are per hub, never reused)
  // When the request was read and when its answer was handed to the server (after the latency),
  // in microseconds since the hub started: where a client's run waited on the hub.
  uint64_t received_us = 0;
  uint64_t answered_us = 0;
};

enum class FaultKind {
  Status,         // answer `status` (408/429/500/502/503/504...) with optional Retry-After / RateLimit headers
  IgnoreRange,    // answer 200 with the whole (virtual, possibly multi-GB) body, ignoring Range
  ResetMidBody,   // send headers and about half the body, then close the connection
  SlowFirstByte,  // wait `delay` before answering normally
  Hang,           // never answer (but return promptly when the hub is stopped)
  RedirectLoop,   // 302 to the same URL forever
  Drip,           // send the head at once, then the body one byte every `delay` (500 ms if 0); HTTP/1.1 only
  LongRedirectBody,  // a 3xx answer (the Hub's redirect) carries a 1 MiB body
  AlterBody,      // a 200 or 206 body has its first space turned into a tab; headers (the ETag) unchanged
  DuplicateSiblings,  // the repository info lists every file twice
};

struct FaultRule {
  FaultKind kind = FaultKind::Status;
  std::string origin;          // "hub", "cdn" or "" (both)
  std::string path_contains;   // substring of the request path; "" matches all
  int status = 500;
  int retry_after_s = -1;      // >= 0: send Retry-After: <n>
  std::string ratelimit;       // non-empty: send RateLimit: <value> (e.g. "\"resolvers\";r=0;t=1")
  int times = 1;               // number of matching requests it applies to; -1 = forever
  std::chrono::milliseconds delay{0};
};

struct VirtualFile {
  std::string prefix;      // the first bytes of the file; everything after is zero bytes
  uint64_t size = 0;       // full size (>= prefix.size())
  bool lfs = false;        // served by 302 to the CDN origin (weights) instead of 307 to resolve-cache
};

struct Options {
  std::filesystem::path fixtures;                 // fixtures/ root: every <org>/<name> dir holding files is a repo
  std::chrono::milliseconds latency{0};           // added before every response on both origins
  bool direct_regular_files = false;              // legacy mode: /resolve/ answers regular files 200 directly
  std::set<std::string> private_repos, gated_repos, disabled_repos;  // repo ids
  std::map<std::string, std::set<std::string>> tokens;  // valid token -> repo ids it grants (private/gated)
  std::map<std::string, std::string> renames;     // old repo id -> canonical id (relative 307)
  size_t tree_page_size = 1000;
  // Each origin also listens for HTTP/2 over TLS (self-signed certificate for 127.0.0.1). A 302 to
  // the CDN keeps the scheme of the request it answers.
  bool tls = false;
  uint32_t h2_max_concurrent_streams = 100;       // SETTINGS_MAX_CONCURRENT_STREAMS of the TLS listeners
  std::chrono::milliseconds keep_alive{2000};     // an idle connection is closed after this long
};

class TestHub {
 public:
  explicit TestHub(Options options);   // starts both servers on 127.0.0.1, ephemeral ports; returns when listening
  ~TestHub();                          // stops both, joins threads, promptly even with Hang faults pending
  TestHub(const TestHub&) = delete;
  TestHub& operator=(const TestHub&) = delete;

  std::string endpoint() const;        // "http://127.0.0.1:<hub port>"
  std::string cdn_origin() const;      // "http://127.0.0.1:<cdn port>"
  // With Options::tls: "https://127.0.0.1:<port>" of the hub's and the CDN's TLS listeners, and
  // the certificate clients must trust (PEM). Empty without.
  std::string tls_endpoint() const;
  std::string cdn_tls_origin() const;
  std::string tls_certificate_pem() const;
  // What 302 Locations point at instead of cdn_origin(), e.g. a TLS proxy in front of the CDN.
  void set_cdn_public_origin(const std::string& origin);
  void add_repo(const std::string& repo_id, std::map<std::string, VirtualFile> files);  // synthetic repo
  void add_fault(FaultRule rule);
  void clear_faults();
  std::vector<RequestRecord> requests() const;
  void clear_requests();
  std::string commit_of(const std::string& repo_id) const;  // 40-hex commit of main

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// "Status", "IgnoreRange", ... (the enumerator names); parse_fault_kind also accepts snake_case.
const char* to_string(FaultKind kind);
FaultKind parse_fault_kind(const std::string& name);  // throws std::invalid_argument

// The request log as a JSON array of objects keyed like RequestRecord's members.
std::string requests_to_json(const std::vector<RequestRecord>& records);

}  // namespace hfi::testhub
