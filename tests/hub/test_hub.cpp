// TestHub: server lifecycle, per-request plumbing (latency, faults, common headers, the request
// log) and the control routes. Routes live in hub_routes.cpp, hub_files.cpp and hub_api.cpp.
#include <simdjson.h>

#include <cctype>
#include <csignal>
#include <stdexcept>

#include "hub/hub_impl.hpp"

namespace hfi::testhub {

using detail::RequestContext;

namespace detail {
RequestContext& current() {
  thread_local RequestContext ctx;
  return ctx;
}
}  // namespace detail

TestHub::Impl::Impl(Options o) : opts(std::move(o)) {
  // A client that hangs up mid-body must not kill the test process (the server itself writes
  // with MSG_NOSIGNAL; this also covers the tests' own clients).
  std::signal(SIGPIPE, SIG_IGN);
  auto fixture_repos = detail::load_fixture_repos(opts.fixtures);
  for (const auto& [id, repo] : *fixture_repos) install_repo(repo);
  signing_secret = util::sha256_hex("testhub-signing\n" + std::to_string(reinterpret_cast<uintptr_t>(this)) +
                                    std::to_string(started.time_since_epoch().count()));
  if (opts.tls) tls = std::make_shared<const http::TlsContext>();
  hub_server = start("hub", hub_port);
  cdn_server = start("cdn", cdn_port);
  endpoint = "http://127.0.0.1:" + std::to_string(hub_port);
  cdn_origin = "http://127.0.0.1:" + std::to_string(cdn_port);
  if (tls) {
    tls_endpoint = "https://127.0.0.1:" + std::to_string(hub_server->tls_port());
    cdn_tls_origin = "https://127.0.0.1:" + std::to_string(cdn_server->tls_port());
  }
  addresses_published.store(true, std::memory_order_release);
  addresses_published.notify_all();
}

TestHub::Impl::~Impl() {
  // Stopping drops every pending latency timer and every held (Hang) request with its connection.
  if (hub_server) hub_server->stop();
  if (cdn_server) cdn_server->stop();
}

std::unique_ptr<http::EventServer> TestHub::Impl::start(const std::string& origin, int& port) {
  http::ServerSettings settings;  // 5 s read and write timeouts, 1000 requests per connection
  settings.tls = tls;
  settings.h2_max_concurrent_streams = opts.h2_max_concurrent_streams;
  settings.keep_alive_timeout = opts.keep_alive;
  auto server = std::make_unique<http::EventServer>(
      settings,
      [this, origin](http::Request&& req, http::Responder responder) { on_request(origin, std::move(req), responder); },
      [this, origin](const http::Request& req, int status) { log_unrouted(origin, req, status); });
  port = server->start();
  return server;
}

void TestHub::Impl::install_repo(std::shared_ptr<const detail::Repo> repo) {
  std::unique_lock lock(repos_mutex);
  for (const auto& [path, file] : repo->files)
    if (file.lfs) cdn_blobs[file.sha256] = BlobRef{repo, &file};
  repos[repo->id] = std::move(repo);
}

std::shared_ptr<const detail::Repo> TestHub::Impl::find_repo(const std::string& id) const {
  std::shared_lock lock(repos_mutex);
  auto it = repos.find(id);
  return it == repos.end() ? nullptr : it->second;
}

void TestHub::Impl::clear_log() {
  std::lock_guard lock(log_mutex);
  log.clear();
  for (auto& count : bucket_counts) count = 0;
}

void TestHub::Impl::clear_fault_rules() {
  std::lock_guard lock(faults_mutex);
  faults.clear();
}

std::optional<FaultRule> TestHub::Impl::take_fault(const std::string& origin, const std::string& raw_path) {
  std::lock_guard lock(faults_mutex);
  for (auto& rule : faults) {
    if (rule.times == 0) continue;
    if (!rule.origin.empty() && rule.origin != origin) continue;
    if (!rule.path_contains.empty() && raw_path.find(rule.path_contains) == std::string::npos) continue;
    if (rule.times > 0) --rule.times;
    return rule;
  }
  return std::nullopt;
}

void TestHub::Impl::put(http::Response& res, const std::string& key, const std::string& value) {
  res.headers.set(key, value);
}

namespace {

std::string bucket_of(const std::string& raw_path) {
  if (raw_path.find("/resolve/") != std::string::npos || raw_path.starts_with("/api/resolve-cache/")) return "resolvers";
  if (raw_path.starts_with("/api/")) return "api";
  return "pages";
}

}  // namespace

void TestHub::Impl::add_common_headers(const http::Request& req, http::Response& res,
                                       const std::string& origin) {
  uint64_t n = ++request_counter;
  std::string root = "Root=1-" + util::sha1_hex("start " + std::to_string(started.time_since_epoch().count())).substr(0, 8) +
                     "-" + util::sha1_hex("request " + std::to_string(n)).substr(0, 24);
  std::string trace = req.get_header_value("X-Amzn-Trace-Id");
  put(res, "X-Request-Id", trace.empty() ? root : root + ";" + trace);
  if (origin != "hub") return;
  put(res, "X-Powered-By", "huggingface-moon");
  // The Hub's three 5-minute buckets (anonymous quotas); counted, never enforced.
  std::string bucket = bucket_of(detail::current().raw_path);
  size_t index = bucket == "api" ? 0 : bucket == "resolvers" ? 1 : 2;
  uint64_t quota = index == 0 ? 500 : index == 1 ? 3000 : 100;
  uint64_t used = ++bucket_counts[index];
  auto elapsed = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started).count();
  uint64_t reset = 300 - static_cast<uint64_t>(elapsed % 300);
  if (!res.has_header("RateLimit"))
    put(res, "RateLimit",
        "\"" + bucket + "\";r=" + std::to_string(used >= quota ? 0 : quota - used) + ";t=" + std::to_string(reset));
  put(res, "RateLimit-Policy", "\"fixed window\";\"" + bucket + "\";q=" + std::to_string(quota) + ";w=300");
}

void TestHub::Impl::on_request(const std::string& origin, http::Request&& req, http::Responder responder) {
  wait_for_addresses();
  if (origin == "hub" && serve_control(req, responder)) return;
  RequestContext ctx;
  ctx.received = std::chrono::steady_clock::now();
  size_t q = req.target.find('?');
  ctx.origin = origin;
  ctx.raw_path = req.target.substr(0, q);
  ctx.raw_query = q == std::string::npos ? "" : req.target.substr(q + 1);
  ctx.target = req.target;
  ctx.range = req.get_header_value("Range");
  ctx.authorization = req.get_header_value("Authorization");
  ctx.user_agent = req.get_header_value("User-Agent");
  ctx.head = req.method == "HEAD";
  ctx.tls = req.tls;
  ctx.protocol = req.version;
  ctx.connection = req.connection;
  ctx.body_bytes = std::make_shared<std::atomic<uint64_t>>(0);
  // The latency is a timer on the server's thread, so a burst of requests waits in parallel.
  auto shared = std::make_shared<const http::Request>(std::move(req));
  responder.after(opts.latency, [this, origin, ctx = std::move(ctx), shared](http::Responder r) mutable {
    std::optional<FaultRule> fault = take_fault(origin, ctx.raw_path);
    if (fault && fault->kind == FaultKind::Hang) return;  // never answered; dropped when the hub stops
    if (fault && fault->kind == FaultKind::SlowFirstByte) {
      r.after(fault->delay, [this, origin, ctx = std::move(ctx), shared](http::Responder later) mutable {
        answer(origin, std::move(ctx), *shared, later);
      });
      return;
    }
    if (fault && fault->kind == FaultKind::IgnoreRange) ctx.ignore_range = true;
    if (fault && fault->kind == FaultKind::ResetMidBody) ctx.reset_mid_body = true;
    if (fault && fault->kind == FaultKind::Drip) ctx.drip_interval = fault->delay.count() > 0 ? fault->delay : std::chrono::milliseconds(500);
    if (fault && fault->kind == FaultKind::LongRedirectBody) ctx.long_redirect_body = true;
    if (fault && fault->kind == FaultKind::AlterBody) ctx.alter_body = true;
    if (fault && fault->kind == FaultKind::DuplicateSiblings) ctx.duplicate_siblings = true;
    if (fault && (fault->kind == FaultKind::Status || fault->kind == FaultKind::RedirectLoop)) {
      detail::current() = std::move(ctx);
      http::Response res;
      if (fault->kind == FaultKind::Status) {
        util::JsonWriter w;
        w.begin_object().key("error").value(util::reason_phrase(fault->status)).end_object();
        send_text(res, fault->status, w.str(), "application/json");
        if (fault->retry_after_s >= 0) put(res, "Retry-After", std::to_string(fault->retry_after_s));
        if (!fault->ratelimit.empty()) put(res, "RateLimit", fault->ratelimit);
      } else {
        send_text(res, 302, "Found. Redirecting to " + shared->target, "text/plain; charset=utf-8");
        put(res, "Location", shared->target);
      }
      deliver(origin, *shared, std::move(res), r);
      return;
    }
    answer(origin, std::move(ctx), *shared, r);
  });
}

void TestHub::Impl::answer(const std::string& origin, RequestContext ctx, const http::Request& req,
                           http::Responder responder) {
  detail::current() = std::move(ctx);
  http::Response res;
  try {
    if (origin == "hub") {
      route_hub(req, res);
    } else {
      route_cdn(req, res);
    }
  } catch (const std::exception& e) {
    res = http::Response{};
    send_text(res, 500, std::string("testhub internal error: ") + e.what(), "text/plain");
  }
  deliver(origin, req, std::move(res), responder);
}

void TestHub::Impl::deliver(const std::string& origin, const http::Request& req, http::Response res,
                            http::Responder responder) {
  add_common_headers(req, res, origin);
  if (detail::current().long_redirect_body && res.status >= 300 && res.status < 400) {
    res.body.first = 0;
    res.body.length = 1u << 20;  // the redirect's text, then zeros
  }
  log_routed(origin, req, res);
  responder.send(std::move(res));
}

void TestHub::Impl::log_routed(const std::string& origin, const http::Request& req, const http::Response& res) {
  const auto& ctx = detail::current();
  LogEntry e;
  e.record.origin = origin;
  e.record.method = req.method;
  e.record.path = ctx.raw_path;
  e.record.target = ctx.target;
  e.record.range = ctx.range;
  e.record.authorization = ctx.authorization;
  e.record.user_agent = ctx.user_agent;
  e.record.status = res.status;
  e.record.protocol = ctx.protocol;
  e.record.connection = ctx.connection;
  e.record.received_us = since_start(ctx.received);
  e.record.answered_us = since_start(std::chrono::steady_clock::now());
  e.body_bytes = ctx.body_bytes;
  std::lock_guard lock(log_mutex);
  log.push_back(std::move(e));
}

void TestHub::Impl::log_unrouted(const std::string& origin, const http::Request& req, int status) {
  wait_for_addresses();
  // Answered by the server itself before routing: a malformed or oversized request.
  LogEntry e;
  e.record.origin = origin;
  e.record.method = req.method;
  e.record.status = status;
  e.record.protocol = req.version;
  e.record.connection = req.connection;
  e.record.target = req.target;
  e.record.path = req.target.substr(0, req.target.find('?'));
  if (origin == "hub" && e.record.path.starts_with("/_testhub/")) return;
  e.record.range = req.get_header_value("Range");
  e.record.authorization = req.get_header_value("Authorization");
  e.record.user_agent = req.get_header_value("User-Agent");
  e.record.body_bytes = req.method == "HEAD" ? 0 : std::string_view(util::reason_phrase(status)).size();
  e.record.received_us = e.record.answered_us = since_start(std::chrono::steady_clock::now());
  std::lock_guard lock(log_mutex);
  log.push_back(std::move(e));
}

std::vector<RequestRecord> TestHub::Impl::snapshot_log() const {
  std::lock_guard lock(log_mutex);
  std::vector<RequestRecord> out;
  out.reserve(log.size());
  for (const auto& e : log) {
    out.push_back(e.record);
    if (e.body_bytes) out.back().body_bytes = e.body_bytes->load();
  }
  return out;
}

namespace {

// A rule from the JSON body of POST /_testhub/fault; every member optional.
FaultRule parse_fault_rule(const std::string& json) {
  simdjson::dom::parser parser;
  simdjson::padded_string body(json);
  simdjson::dom::object o;
  FaultRule rule;
  if (parser.parse(body).get(o)) throw std::invalid_argument("body is not a JSON object");
  std::string_view s;
  int64_t n = 0;
  if (o["kind"].get(s) == simdjson::SUCCESS) rule.kind = parse_fault_kind(std::string(s));
  if (o["origin"].get(s) == simdjson::SUCCESS) rule.origin = std::string(s);
  if (o["path_contains"].get(s) == simdjson::SUCCESS) rule.path_contains = std::string(s);
  if (o["ratelimit"].get(s) == simdjson::SUCCESS) rule.ratelimit = std::string(s);
  if (o["status"].get(n) == simdjson::SUCCESS) rule.status = static_cast<int>(n);
  if (o["retry_after_s"].get(n) == simdjson::SUCCESS) rule.retry_after_s = static_cast<int>(n);
  if (o["times"].get(n) == simdjson::SUCCESS) rule.times = static_cast<int>(n);
  if (o["delay_ms"].get(n) == simdjson::SUCCESS) rule.delay = std::chrono::milliseconds(n);
  return rule;
}

}  // namespace

// The control routes: answered at once, never delayed, faulted or logged.
bool TestHub::Impl::serve_control(const http::Request& req, http::Responder responder) {
  std::string path = req.target.substr(0, req.target.find('?'));
  if (!path.starts_with("/_testhub/")) return false;
  RequestContext none;
  detail::current() = none;  // no byte counter: control bodies are not logged
  http::Response res;
  auto json = [&](int status, std::string body) { send_text(res, status, std::move(body), "application/json"); };
  if (req.method == "GET" && path == "/_testhub/requests") {
    json(200, requests_to_json(snapshot_log()));
  } else if (req.method == "POST" && path == "/_testhub/reset") {
    clear_log();
    json(200, "{}");
  } else if (req.method == "POST" && path == "/_testhub/faults/clear") {
    clear_fault_rules();
    json(200, "{}");
  } else if (req.method == "POST" && path == "/_testhub/fault") {
    try {
      FaultRule rule = parse_fault_rule(req.body);
      std::lock_guard lock(faults_mutex);
      faults.push_back(rule);
      json(200, "{}");
    } catch (const std::exception& e) {
      util::JsonWriter w;
      w.begin_object().key("error").value(e.what()).end_object();
      json(400, w.str());
    }
  } else {
    send_text(res, 404, "Not Found", "text/plain");
  }
  responder.send(std::move(res));
  return true;
}

// ---- public interface ----

TestHub::TestHub(Options options) : impl_(std::make_unique<Impl>(std::move(options))) {}
TestHub::~TestHub() = default;

std::string TestHub::endpoint() const { return impl_->endpoint; }
std::string TestHub::cdn_origin() const { return impl_->cdn_origin; }
std::string TestHub::tls_endpoint() const { return impl_->tls_endpoint; }
std::string TestHub::cdn_tls_origin() const { return impl_->cdn_tls_origin; }
std::string TestHub::tls_certificate_pem() const { return impl_->tls ? impl_->tls->certificate_pem() : ""; }

void TestHub::set_cdn_public_origin(const std::string& origin) {
  std::lock_guard lock(impl_->cdn_public_mutex);
  impl_->cdn_public_origin = origin;
}

void TestHub::add_repo(const std::string& repo_id, std::map<std::string, VirtualFile> files) {
  impl_->install_repo(detail::make_repo(repo_id, files));
}

void TestHub::add_fault(FaultRule rule) {
  std::lock_guard lock(impl_->faults_mutex);
  impl_->faults.push_back(std::move(rule));
}

void TestHub::clear_faults() { impl_->clear_fault_rules(); }

std::vector<RequestRecord> TestHub::requests() const { return impl_->snapshot_log(); }

void TestHub::clear_requests() { impl_->clear_log(); }

std::string TestHub::commit_of(const std::string& repo_id) const {
  auto repo = impl_->find_repo(repo_id);
  if (!repo) throw std::invalid_argument("testhub: no repo " + repo_id);
  return repo->commit;
}

const char* to_string(FaultKind kind) {
  switch (kind) {
    case FaultKind::Status: return "Status";
    case FaultKind::IgnoreRange: return "IgnoreRange";
    case FaultKind::ResetMidBody: return "ResetMidBody";
    case FaultKind::SlowFirstByte: return "SlowFirstByte";
    case FaultKind::Hang: return "Hang";
    case FaultKind::RedirectLoop: return "RedirectLoop";
    case FaultKind::Drip: return "Drip";
    case FaultKind::LongRedirectBody: return "LongRedirectBody";
    case FaultKind::AlterBody: return "AlterBody";
    case FaultKind::DuplicateSiblings: return "DuplicateSiblings";
  }
  return "?";
}

FaultKind parse_fault_kind(const std::string& name) {
  std::string squashed;
  for (char c : name)
    if (c != '_' && c != '-') squashed += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (FaultKind k : {FaultKind::Status, FaultKind::IgnoreRange, FaultKind::ResetMidBody, FaultKind::SlowFirstByte,
                      FaultKind::Hang, FaultKind::RedirectLoop, FaultKind::Drip, FaultKind::LongRedirectBody, FaultKind::AlterBody, FaultKind::DuplicateSiblings}) {
    std::string candidate;
    for (const char* p = to_string(k); *p; ++p) candidate += static_cast<char>(std::tolower(static_cast<unsigned char>(*p)));
    if (candidate == squashed) return k;
  }
  throw std::invalid_argument("unknown fault kind: " + name);
}

std::string requests_to_json(const std::vector<RequestRecord>& records) {
  util::JsonWriter w;
  w.begin_array();
  for (const auto& r : records) {
    w.begin_object();
    w.key("origin").value(r.origin);
    w.key("method").value(r.method);
    w.key("path").value(r.path);
    w.key("target").value(r.target);
    w.key("range").value(r.range);
    w.key("authorization").value(r.authorization);
    w.key("user_agent").value(r.user_agent);
    w.key("status").value(r.status);
    w.key("body_bytes").value(r.body_bytes);
    w.key("protocol").value(r.protocol);
    w.key("connection").value(r.connection);
    w.key("received_us").value(r.received_us);
    w.key("answered_us").value(r.answered_us);
    w.end_object();
  }
  w.end_array();
  return w.str();
}

}  // namespace hfi::testhub
