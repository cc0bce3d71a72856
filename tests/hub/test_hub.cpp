// TestHub: server lifecycle, per-request plumbing (latency, faults, common headers, the request
// log) and the control routes. Routes live in hub_routes.cpp, hub_files.cpp and hub_api.cpp.
#include <simdjson.h>

#include <sys/socket.h>

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
  // A client that hangs up mid-body must not kill the test process.
  std::signal(SIGPIPE, SIG_IGN);
  auto fixture_repos = detail::load_fixture_repos(opts.fixtures);
  for (const auto& [id, repo] : *fixture_repos) install_repo(repo);
  signing_secret = util::sha256_hex("testhub-signing\n" + std::to_string(reinterpret_cast<uintptr_t>(this)) +
                                    std::to_string(started.time_since_epoch().count()));
  start(hub_server, hub_port, hub_thread, "hub");
  start(cdn_server, cdn_port, cdn_thread, "cdn");
  endpoint = "http://127.0.0.1:" + std::to_string(hub_port);
  cdn_origin = "http://127.0.0.1:" + std::to_string(cdn_port);
}

TestHub::Impl::~Impl() {
  {
    std::lock_guard lock(stop_mutex);
    stopping = true;
  }
  stop_cv.notify_all();
  hub_server.stop();
  cdn_server.stop();
  if (hub_thread.joinable()) hub_thread.join();
  if (cdn_thread.joinable()) cdn_thread.join();
}

void TestHub::Impl::start(httplib::Server& server, int& port, std::thread& thread, const std::string& origin) {
  size_t threads = std::max<size_t>(opts.threads, 4);
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.set_keep_alive_max_count(1000);
  // cpp-httplib sends headers and body in separate writes; with Nagle's algorithm the body then
  // waits for the client's delayed ACK (40 ms on Linux), a stall the real Hub and CDN do not have.
  // Set on the listening socket, TCP_NODELAY is inherited by every accepted connection.
  server.set_tcp_nodelay(true);
  // Idle keep-alive connections hold a worker until this expires, also during shutdown.
  server.set_keep_alive_timeout(2);
  server.set_read_timeout(5);
  server.set_write_timeout(5);
  server.set_pre_routing_handler(
      [this, origin](const httplib::Request& req, httplib::Response& res) { return pre_route(origin, req, res); });
  server.set_logger(
      [this, origin](const httplib::Request& req, const httplib::Response& res) { log_unrouted(origin, req, res); });
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    res.status = 500;
    res.set_content("testhub internal error: " + what, "text/plain");
  });
  if (origin == "hub") install_control_routes();
  // libcpp-httplib.so listens with a backlog of 5: a client opening ~170 connections at once would
  // see dropped SYNs and one-second retransmits. Keep the socket to listen() again with more room.
  auto listen_fd = std::make_shared<socket_t>(INVALID_SOCKET);
  server.set_socket_options([listen_fd](socket_t sock) {
    httplib::default_socket_options(sock);
    *listen_fd = sock;
  });
  port = server.bind_to_any_port("127.0.0.1");
  if (port <= 0) throw std::runtime_error("testhub: cannot bind a port on 127.0.0.1");
  if (*listen_fd == INVALID_SOCKET || ::listen(*listen_fd, 4096) != 0)
    throw std::runtime_error("testhub: cannot widen the listen backlog");
  thread = std::thread([&server] { server.listen_after_bind(); });
  // The socket already listens; wait until the accept loop runs so stop() is well-defined.
  for (int i = 0; i < 5000 && !server.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
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

bool TestHub::Impl::wait_or_stop(std::chrono::milliseconds delay) {
  std::unique_lock lock(stop_mutex);
  if (delay.count() <= 0) return !stopping;
  return !stop_cv.wait_for(lock, delay, [this] { return stopping; });
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

void TestHub::Impl::put(httplib::Response& res, const std::string& key, const std::string& value) {
  res.headers.erase(key);
  res.set_header(key, value);
}

namespace {

std::string bucket_of(const std::string& raw_path) {
  if (raw_path.find("/resolve/") != std::string::npos || raw_path.starts_with("/api/resolve-cache/")) return "resolvers";
  if (raw_path.starts_with("/api/")) return "api";
  return "pages";
}

}  // namespace

void TestHub::Impl::add_common_headers(const httplib::Request& req, httplib::Response& res,
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

httplib::Server::HandlerResponse TestHub::Impl::pre_route(const std::string& origin, const httplib::Request& req,
                                                          httplib::Response& res) {
  auto& ctx = detail::current();
  ctx = RequestContext{};
  size_t q = req.target.find('?');
  std::string raw_path = req.target.substr(0, q);
  if (origin == "hub" && raw_path.starts_with("/_testhub/")) {
    // Body-less POSTs (curl -X POST without -d) would fail cpp-httplib's body reading: answer here.
    bool bodyless = !req.has_header("Content-Length") && !req.has_header("Transfer-Encoding");
    if (req.method == "POST" && bodyless && (raw_path == "/_testhub/reset" || raw_path == "/_testhub/faults/clear")) {
      if (raw_path == "/_testhub/reset") {
        clear_log();
      } else {
        clear_fault_rules();
      }
      res.status = 200;
      res.set_content("{}", "application/json");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  }
  ctx.active = true;
  ctx.origin = origin;
  ctx.raw_path = raw_path;
  ctx.raw_query = q == std::string::npos ? "" : req.target.substr(q + 1);
  ctx.target = req.target;
  ctx.range = req.get_header_value("Range");
  ctx.authorization = req.get_header_value("Authorization");
  ctx.head = req.method == "HEAD";
  ctx.body_bytes = std::make_shared<std::atomic<uint64_t>>(0);
  // cpp-httplib would apply Range itself (unclamped) and gzip text bodies; the hub does both its
  // own way. The Request object is a non-const local of the server, so this is well-defined.
  auto& mutable_req = const_cast<httplib::Request&>(req);
  mutable_req.ranges.clear();
  mutable_req.headers.erase("Accept-Encoding");

  bool handled = false;
  if (!wait_or_stop(opts.latency)) {
    send_text(res, 503, "testhub is shutting down", "text/plain");
    put(res, "Connection", "close");
    handled = true;
  }
  std::optional<FaultRule> fault = handled ? std::nullopt : take_fault(origin, raw_path);
  if (fault) {
    switch (fault->kind) {
      case FaultKind::Status: {
        std::string reason = util::reason_phrase(fault->status);
        util::JsonWriter w;
        w.begin_object().key("error").value(reason).end_object();
        send_text(res, fault->status, w.str(), "application/json");
        if (fault->retry_after_s >= 0) put(res, "Retry-After", std::to_string(fault->retry_after_s));
        if (!fault->ratelimit.empty()) put(res, "RateLimit", fault->ratelimit);
        handled = true;
        break;
      }
      case FaultKind::IgnoreRange: ctx.ignore_range = true; break;
      case FaultKind::ResetMidBody: ctx.reset_mid_body = true; break;
      case FaultKind::SlowFirstByte:
        if (!wait_or_stop(fault->delay)) {
          send_text(res, 503, "testhub is shutting down", "text/plain");
          put(res, "Connection", "close");
          handled = true;
        }
        break;
      case FaultKind::Hang:
        while (wait_or_stop(std::chrono::hours(1))) {
        }
        send_text(res, 503, "testhub is shutting down", "text/plain");
        put(res, "Connection", "close");
        handled = true;
        break;
      case FaultKind::RedirectLoop:
        send_text(res, 302, "Found. Redirecting to " + req.target, "text/plain; charset=utf-8");
        put(res, "Location", req.target);
        handled = true;
        break;
    }
  }
  if (!handled) {
    try {
      if (origin == "hub") {
        route_hub(req, res);
      } else {
        route_cdn(req, res);
      }
    } catch (const std::exception& e) {
      send_text(res, 500, std::string("testhub internal error: ") + e.what(), "text/plain");
    }
  }
  add_common_headers(req, res, origin);
  log_routed(origin, req, res);
  return httplib::Server::HandlerResponse::Handled;
}

void TestHub::Impl::log_routed(const std::string& origin, const httplib::Request& req, const httplib::Response& res) {
  const auto& ctx = detail::current();
  LogEntry e;
  e.record.origin = origin;
  e.record.method = req.method;
  e.record.path = ctx.raw_path;
  e.record.target = ctx.target;
  e.record.range = ctx.range;
  e.record.authorization = ctx.authorization;
  e.record.status = res.status;
  e.body_bytes = ctx.body_bytes;
  std::lock_guard lock(log_mutex);
  log.push_back(std::move(e));
}

void TestHub::Impl::log_unrouted(const std::string& origin, const httplib::Request& req, const httplib::Response& res) {
  auto& ctx = detail::current();
  if (ctx.active && ctx.origin == origin) {  // already logged by pre_route
    ctx.active = false;
    return;
  }
  // Answered by cpp-httplib before routing (malformed request line, unparseable Range, ...).
  LogEntry e;
  e.record.origin = origin;
  e.record.method = req.method;
  e.record.status = res.status;
  e.record.target = req.target;
  e.record.path = req.target.substr(0, req.target.find('?'));
  if (origin == "hub" && e.record.path.starts_with("/_testhub/")) return;
  e.record.range = req.get_header_value("Range");
  e.record.authorization = req.get_header_value("Authorization");
  e.record.body_bytes = req.method == "HEAD" ? 0 : res.body.size();
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

void TestHub::Impl::install_control_routes() {
  hub_server.Get("/_testhub/requests", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(requests_to_json(snapshot_log()), "application/json");
  });
  hub_server.Post("/_testhub/reset", [this](const httplib::Request&, httplib::Response& res) {
    clear_log();
    res.set_content("{}", "application/json");
  });
  hub_server.Post("/_testhub/faults/clear", [this](const httplib::Request&, httplib::Response& res) {
    clear_fault_rules();
    res.set_content("{}", "application/json");
  });
  hub_server.Post("/_testhub/fault", [this](const httplib::Request& req, httplib::Response& res) {
    simdjson::dom::parser parser;
    simdjson::padded_string body(req.body);
    simdjson::dom::object o;
    FaultRule rule;
    try {
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
    } catch (const std::exception& e) {
      res.status = 400;
      util::JsonWriter w;
      w.begin_object().key("error").value(e.what()).end_object();
      res.set_content(w.str(), "application/json");
      return;
    }
    {
      std::lock_guard lock(faults_mutex);
      faults.push_back(rule);
    }
    res.set_content("{}", "application/json");
  });
}

// ---- public interface ----

TestHub::TestHub(Options options) : impl_(std::make_unique<Impl>(std::move(options))) {}
TestHub::~TestHub() = default;

std::string TestHub::endpoint() const { return impl_->endpoint; }
std::string TestHub::cdn_origin() const { return impl_->cdn_origin; }

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
  }
  return "?";
}

FaultKind parse_fault_kind(const std::string& name) {
  std::string squashed;
  for (char c : name)
    if (c != '_' && c != '-') squashed += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (FaultKind k : {FaultKind::Status, FaultKind::IgnoreRange, FaultKind::ResetMidBody, FaultKind::SlowFirstByte,
                      FaultKind::Hang, FaultKind::RedirectLoop}) {
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
    w.key("status").value(r.status);
    w.key("body_bytes").value(r.body_bytes);
    w.end_object();
  }
  w.end_array();
  return w.str();
}

}  // namespace hfi::testhub
