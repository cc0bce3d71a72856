// One thread, one epoll set: accept, read and parse request heads, hand requests to the handler,
// run timers, and stream bodies with sendmsg as the socket accepts them.
#include "hub/event_server.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <queue>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "hub/h2_session.hpp"
#include "hub/hub_util.hpp"
#include "hub/tls_context.hpp"

namespace hfi::testhub::http {

namespace {

using Clock = std::chrono::steady_clock;

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    unsigned char x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
    if (std::tolower(x) != std::tolower(y)) return false;
  }
  return true;
}

bool contains_token(std::string_view list, std::string_view token) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string_view item = list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (iequals(item, token)) return true;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return false;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Ids in epoll's data field: these two are not connections.
constexpr uint64_t kListenId = 1;
constexpr uint64_t kWakeId = 2;
constexpr uint64_t kTlsListenId = 3;
constexpr uint64_t kFirstConnectionId = 16;
constexpr size_t kChunk = 256 * 1024;  // largest body piece offered to one sendmsg
constexpr auto kSweepInterval = std::chrono::milliseconds(200);

const std::array<char, kChunk>& zeros() {
  static const std::array<char, kChunk> z{};
  return z;
}

}  // namespace

const std::string* HeaderList::find(std::string_view name) const {
  for (const auto& h : items)
    if (iequals(h.name, name)) return &h.value;
  return nullptr;
}

std::string HeaderList::get(std::string_view name) const {
  const std::string* v = find(name);
  return v ? *v : std::string();
}

void HeaderList::set(std::string_view name, std::string value) {
  erase(name);
  items.push_back({std::string(name), std::move(value)});
}

void HeaderList::erase(std::string_view name) {
  std::erase_if(items, [&](const Header& h) { return iequals(h.name, name); });
}

struct Connection {
  enum class State { Reading, Handling, Writing, Draining };
  int fd = -1;
  uint64_t id = 0;
  State state = State::Reading;
  std::string in;  // received and not yet consumed
  size_t requests = 0;
  bool close_after = false;     // this response is the connection's last
  bool sent_continue = false;   // "100 Continue" already sent for the request being read
  bool polling_out = false;     // EPOLLOUT is in the interest set
  bool peer_done = false;       // the client shut down its sending side: answer, then close
  std::string out_head;
  size_t head_sent = 0;
  Body body;
  uint64_t body_to_send = 0;
  uint64_t body_sent = 0;
  Clock::time_point last_activity = Clock::now();
  std::unique_ptr<H2Session> h2;  // set on the TLS listener's connections, which speak only HTTP/2
};

struct EventServer::Impl {
  ServerSettings settings;
  Handler handler;
  RejectHook on_reject;
  EventServer* owner = nullptr;

  int epoll_fd = -1, listen_fd = -1, wake_fd = -1, tls_listen_fd = -1;
  int tls_port = 0;
  std::thread thread;
  std::atomic<bool> stopping{false};
  bool stopped = false;

  std::unordered_map<uint64_t, std::unique_ptr<Connection>> connections;
  uint64_t next_id = kFirstConnectionId;
  std::vector<uint64_t> reparse;  // connections that finished a response with input still buffered
  std::vector<uint64_t> doomed;   // HTTP/2 connections that broke while their session was on the stack

  struct Timer {
    Clock::time_point due;
    uint64_t seq;
    std::function<void()> run;
    bool operator>(const Timer& o) const { return due != o.due ? due > o.due : seq > o.seq; }
  };
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers;
  uint64_t timer_seq = 0;
  Clock::time_point last_sweep = Clock::now();

  ~Impl() {
    for (int fd : {epoll_fd, listen_fd, wake_fd, tls_listen_fd})
      if (fd >= 0) ::close(fd);
  }

  Connection* find(uint64_t id) {
    auto it = connections.find(id);
    return it == connections.end() ? nullptr : it->second.get();
  }

  void close_connection(uint64_t id) {
    auto it = connections.find(id);
    if (it == connections.end()) return;
    ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, it->second->fd, nullptr);
    ::close(it->second->fd);
    connections.erase(it);
  }

  void watch_output(Connection& c, bool on) {
    if (c.polling_out == on) return;
    set_interest(c, on);
  }

  void set_interest(Connection& c, bool out) {
    epoll_event ev{};
    // Input is not watched once the client has finished sending: a level-triggered end of
    // stream would otherwise wake the loop without pause.
    ev.events = (c.peer_done ? 0u : EPOLLIN | EPOLLRDHUP) | (out ? EPOLLOUT : 0u);
    ev.data.u64 = c.id;
    ::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c.fd, &ev);
    c.polling_out = out;
  }

  void run_loop() {
    std::array<epoll_event, 256> events;
    while (!stopping.load()) {
      int timeout_ms = static_cast<int>(kSweepInterval.count());
      if (!timers.empty()) {
        auto wait = timers.top().due - Clock::now();
        // Rounded up: a timer must never fire early.
        auto ms = std::chrono::ceil<std::chrono::milliseconds>(wait).count();
        timeout_ms = static_cast<int>(std::clamp<int64_t>(ms, 0, timeout_ms));
      }
      int n = ::epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), timeout_ms);
      if (n < 0 && errno != EINTR) break;
      for (int i = 0; i < n; ++i) {
        uint64_t id = events[i].data.u64;
        if (id == kWakeId) continue;  // stop() was called; the loop condition sees it
        if (id == kListenId || id == kTlsListenId) {
          accept_all(id == kTlsListenId);
          continue;
        }
        uint32_t what = events[i].events;
        if (what & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) on_readable(id);
        if ((what & EPOLLOUT) && find(id)) flush(id);
      }
      run_due_timers();
      while (!reparse.empty()) {
        std::vector<uint64_t> ids;
        ids.swap(reparse);
        for (uint64_t id : ids) parse_requests(id);
      }
      for (uint64_t id : doomed) close_connection(id);
      doomed.clear();
      sweep();
    }
    for (auto& [id, c] : connections) ::close(c->fd);
    connections.clear();
    timers = {};
  }

  void accept_all(bool tls) {
    while (true) {
      int fd = ::accept4(tls ? tls_listen_fd : listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN, or an error on one pending connection: try again on the next event
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      auto c = std::make_unique<Connection>();
      c->fd = fd;
      c->id = next_id++;
      if (tls) {
        uint64_t id = c->id;
        c->h2 = std::make_unique<H2Session>(settings.tls->get(), fd, settings.h2_max_concurrent_streams,
                                            settings.max_body_bytes,
                                            [this, id](int32_t stream, Request&& req) {
                                              req.tls = true;
                                              dispatch(id, stream, std::move(req));
                                            });
      }
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLRDHUP;
      ev.data.u64 = c->id;
      if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        ::close(fd);
        continue;
      }
      connections.emplace(c->id, std::move(c));
    }
  }

  void on_readable(uint64_t id) {
    Connection* c = find(id);
    if (!c) return;
    if (c->h2) return on_h2_progress(id, c->h2->on_readable());
    std::array<char, 64 * 1024> buf;
    while (true) {
      ssize_t n = ::recv(c->fd, buf.data(), buf.size(), 0);
      if (n > 0) {
        c->last_activity = Clock::now();
        if (c->state == Connection::State::Draining) continue;
        c->in.append(buf.data(), static_cast<size_t>(n));
        if (c->in.size() > settings.max_head_bytes + settings.max_body_bytes) {
          // More than one request may hold: a free connection answers it (431 or 413) below; a busy
          // one is being flooded ahead of the answer it waits for.
          if (c->state == Connection::State::Reading) break;
          return close_connection(id);
        }
        continue;
      }
      if (n == 0) return on_end_of_input(id);
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      return close_connection(id);
    }
    if (c->state == Connection::State::Reading) parse_requests(id);
  }

  // The client sent its last byte. A client that shuts down only its sending side after a
  // request still gets the answer; a connection with nothing left to answer closes.
  void on_end_of_input(uint64_t id) {
    Connection* c = find(id);
    if (!c) return;
    if (c->state == Connection::State::Reading && !c->in.empty()) {
      parse_requests(id);
      c = find(id);
      if (!c) return;
    }
    if (c->state == Connection::State::Reading || c->state == Connection::State::Draining) return close_connection(id);
    c->peer_done = true;
    c->close_after = true;
    c->last_activity = Clock::now();
    set_interest(*c, c->polling_out);
  }

  // Parses and dispatches buffered requests while the connection is free to take one.
  void parse_requests(uint64_t id) {
    while (true) {
      Connection* c = find(id);
      if (!c || c->state != Connection::State::Reading || c->in.empty()) return;
      size_t end = c->in.find("\r\n\r\n");
      if (end == std::string::npos) {
        if (c->in.size() > settings.max_head_bytes) return reject(*c, Request{}, 431);
        return;
      }
      if (end > settings.max_head_bytes) return reject(*c, Request{}, 431);
      Request req;
      if (!parse_head(std::string_view(c->in).substr(0, end), req)) return reject(*c, req, 400);
      if (req.has_header("Transfer-Encoding")) return reject(*c, req, 501);
      uint64_t length = 0;
      if (const std::string* cl = req.headers.find("Content-Length")) {
        auto [p, ec] = std::from_chars(cl->data(), cl->data() + cl->size(), length);
        if (ec != std::errc() || p != cl->data() + cl->size()) return reject(*c, req, 400);
      }
      if (length > settings.max_body_bytes) return reject(*c, req, 413);
      size_t need = end + 4 + static_cast<size_t>(length);
      if (c->in.size() < need) {
        if (!c->sent_continue && length > 0 && iequals(req.headers.get("Expect"), "100-continue")) {
          static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
          ::send(c->fd, kContinue.data(), kContinue.size(), MSG_NOSIGNAL);  // tiny; a short write only delays the client
          c->sent_continue = true;
        }
        return;
      }
      req.body = c->in.substr(end + 4, static_cast<size_t>(length));
      c->in.erase(0, need);
      c->sent_continue = false;
      ++c->requests;
      bool http10 = req.version == "HTTP/1.0";
      std::string connection = req.headers.get("Connection");
      c->close_after = contains_token(connection, "close") || (http10 && !contains_token(connection, "keep-alive")) ||
                       c->requests >= settings.max_requests_per_connection;
      c->state = Connection::State::Handling;
      dispatch(id, 0, std::move(req));
    }
  }

  void dispatch(uint64_t id, int32_t stream, Request&& req) {
    bool head = req.method == "HEAD";
    req.connection = id;
    try {
      handler(std::move(req), Responder(owner, id, stream, head));  // may answer (and finish) right away
    } catch (const std::exception& e) {
      // A handler bug must not take the server thread down with it: the client gets a 500
      // (unless the handler answered before it threw).
      Response res;
      res.status = 500;
      res.headers.set("Content-Type", "text/plain");
      res.body.prefix = std::make_shared<const std::string>(std::string("testhub internal error: ") + e.what());
      res.body.length = res.body.prefix->size();
      send(id, stream, head, std::move(res));
    }
  }

  // After an HTTP/2 session read or wrote: close it when it is over, else watch for output room.
  void on_h2_progress(uint64_t id, bool alive) {
    Connection* c = find(id);
    if (!c) return;
    if (!alive) return close_connection(id);
    c->last_activity = Clock::now();
    watch_output(*c, c->h2->blocked());
  }

  static bool parse_head(std::string_view head, Request& req) {
    size_t line_end = head.find("\r\n");
    std::string_view line = head.substr(0, line_end);
    size_t sp1 = line.find(' ');
    size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp1 == std::string_view::npos || sp2 == std::string_view::npos || sp1 == 0 || sp2 == sp1 + 1) return false;
    req.method = std::string(line.substr(0, sp1));
    req.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
    req.version = std::string(line.substr(sp2 + 1));
    if (req.version != "HTTP/1.1" && req.version != "HTTP/1.0") return false;
    if (req.target.empty() || req.target.front() != '/') return false;
    for (char ch : req.method)
      if (ch < 'A' || ch > 'Z') return false;
    size_t pos = line_end == std::string_view::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      size_t next = head.find("\r\n", pos);
      std::string_view field = head.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos);
      pos = next == std::string_view::npos ? head.size() : next + 2;
      size_t colon = field.find(':');
      if (colon == std::string_view::npos || colon == 0) return false;
      std::string_view name = field.substr(0, colon);
      if (name.find_first_of(" \t") != std::string_view::npos) return false;
      req.headers.items.push_back({std::string(name), std::string(trim(field.substr(colon + 1)))});
    }
    return true;
  }

  void reject(Connection& c, const Request& partial, int status) {
    c.state = Connection::State::Handling;
    c.close_after = true;
    c.in.clear();
    if (on_reject) on_reject(partial, status);
    Response res;
    res.status = status;
    res.headers.set("Content-Type", "text/plain");
    res.body.prefix = std::make_shared<const std::string>(util::reason_phrase(status));
    res.body.length = res.body.prefix->size();
    send(c.id, 0, partial.method == "HEAD", std::move(res));
  }

  void send(uint64_t id, int32_t stream, bool head, Response res) {
    Connection* c = find(id);
    if (c && c->h2) {
      c->h2->respond(stream, head, std::move(res));
      // The session may be on the stack (a handler answering at once): a broken one closes later.
      if (!c->h2->flush()) return doomed.push_back(id);
      c->last_activity = Clock::now();
      return watch_output(*c, c->h2->blocked());
    }
    if (!c || c->state != Connection::State::Handling) return;  // the client left meanwhile
    if (contains_token(res.headers.get("Connection"), "close")) c->close_after = true;
    res.headers.erase("Connection");
    res.headers.erase("Content-Length");
    std::string out = "HTTP/1.1 " + std::to_string(res.status) + " " + util::reason_phrase(res.status) + "\r\n";
    for (const auto& h : res.headers.items) out += h.name + ": " + h.value + "\r\n";
    out += "Content-Length: " + std::to_string(res.body.length) + "\r\n";
    if (c->close_after) out += "Connection: close\r\n";
    out += "\r\n";
    c->out_head = std::move(out);
    c->head_sent = 0;
    c->body = std::move(res.body);
    c->body_sent = 0;
    c->body_to_send = head ? 0 : std::min(c->body.length, c->body.send_limit);
    if (!head && c->body.send_limit < c->body.length) c->close_after = true;
    c->state = Connection::State::Writing;
    flush(id);
  }

  // Writes as much of the response as the socket takes now; EPOLLOUT brings us back for the rest.
  void flush(uint64_t id) {
    Connection* c = find(id);
    if (c && c->h2) return on_h2_progress(id, c->h2->flush());
    if (!c || c->state != Connection::State::Writing) return;
    while (true) {
      std::array<iovec, 2> iov{};
      int count = 0;
      if (c->head_sent < c->out_head.size()) {
        iov[count++] = {c->out_head.data() + c->head_sent, c->out_head.size() - c->head_sent};
      }
      size_t body_offer = 0;
      if (c->body_sent < c->body_to_send) {
        uint64_t pos = c->body.first + c->body_sent;
        uint64_t left = c->body_to_send - c->body_sent;
        const std::string* prefix = c->body.prefix.get();
        const char* data;
        if (prefix && pos < prefix->size()) {
          data = prefix->data() + pos;
          body_offer = static_cast<size_t>(std::min<uint64_t>({left, prefix->size() - pos, kChunk}));
        } else {
          data = zeros().data();
          body_offer = static_cast<size_t>(std::min<uint64_t>(left, kChunk));
        }
        // A dripped body starts once the head is out, a byte at a time.
        if (c->body.drip_interval.count() > 0) body_offer = c->head_sent < c->out_head.size() ? 0 : std::min<size_t>(body_offer, 1);
        if (body_offer > 0) iov[count++] = {const_cast<char*>(data), body_offer};
      }
      if (count == 0) break;
      // Counted before the write, so a client that already holds the bytes never sees a lower count.
      if (c->body.counter) *c->body.counter += body_offer;
      msghdr msg{};
      msg.msg_iov = iov.data();
      msg.msg_iovlen = static_cast<size_t>(count);
      ssize_t sent = ::sendmsg(c->fd, &msg, MSG_NOSIGNAL);
      if (sent < 0) {
        if (c->body.counter) *c->body.counter -= body_offer;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return watch_output(*c, true);
        return close_connection(id);
      }
      c->last_activity = Clock::now();
      size_t n = static_cast<size_t>(sent);
      size_t head_part = std::min(n, c->out_head.size() - c->head_sent);
      c->head_sent += head_part;
      size_t body_part = n - head_part;
      c->body_sent += body_part;
      if (c->body.counter) *c->body.counter -= body_offer - body_part;
      if (c->body.drip_interval.count() > 0 && c->head_sent == c->out_head.size() && c->body_sent < c->body_to_send)
        return drip_later(*c);
    }
    watch_output(*c, false);
    if (c->close_after) {
      if (c->peer_done) return close_connection(id);  // all input read: a plain close is clean
      // FIN after the last byte, then wait for the client's close: closing with unread input
      // would send a reset that can destroy the response in flight.
      ::shutdown(c->fd, SHUT_WR);
      c->state = Connection::State::Draining;
      c->in.clear();
      return;
    }
    c->state = Connection::State::Reading;
    c->body = Body{};
    c->out_head.clear();
    if (!c->in.empty()) reparse.push_back(id);
  }

  // The next byte of a dripped body goes out on a timer, not when the socket has room.
  void drip_later(Connection& c) {
    watch_output(c, false);
    uint64_t id = c.id;
    timers.push({Clock::now() + c.body.drip_interval, timer_seq++, [this, id] { flush(id); }});
  }

  void run_due_timers() {
    auto now = Clock::now();
    while (!timers.empty() && timers.top().due <= now && !stopping.load()) {
      auto run = std::move(const_cast<Timer&>(timers.top()).run);
      timers.pop();
      run();
    }
  }

  void sweep() {
    auto now = Clock::now();
    if (now - last_sweep < kSweepInterval) return;
    last_sweep = now;
    std::vector<uint64_t> expired;
    for (const auto& [id, c] : connections) {
      auto idle = now - c->last_activity;
      if (c->h2) {
        // Streams being handled are the handler's business (a Hang fault holds one on purpose).
        bool stalled = c->h2->blocked() ? idle > settings.write_timeout
                                        : c->h2->open_streams() == 0 && idle > settings.keep_alive_timeout;
        if (stalled) expired.push_back(id);
        continue;
      }
      switch (c->state) {
        case Connection::State::Reading:
          if (idle > (c->in.empty() ? settings.keep_alive_timeout : settings.read_timeout)) expired.push_back(id);
          break;
        case Connection::State::Writing:
          if (idle > settings.write_timeout) expired.push_back(id);
          break;
        case Connection::State::Draining:
          if (idle > settings.keep_alive_timeout) expired.push_back(id);
          break;
        case Connection::State::Handling:  // the handler decides; a Hang fault holds it on purpose
          if (c->peer_done && idle > settings.keep_alive_timeout) expired.push_back(id);  // unless nobody is there
          break;
      }
    }
    for (uint64_t id : expired) close_connection(id);
  }
};

void Responder::send(Response response) const {
  server_->impl_->send(connection_, stream_, head_, std::move(response));
}

void Responder::after(std::chrono::milliseconds delay, std::function<void(Responder)> then) const {
  auto* impl = server_->impl_.get();
  Responder self = *this;
  impl->timers.push({std::chrono::steady_clock::now() + delay, impl->timer_seq++,
                     [self, then = std::move(then)] { then(self); }});
}

EventServer::EventServer(ServerSettings settings, Handler handler, RejectHook on_reject)
    : impl_(std::make_unique<Impl>()) {
  impl_->settings = settings;
  impl_->handler = std::move(handler);
  impl_->on_reject = std::move(on_reject);
  impl_->owner = this;
}

EventServer::~EventServer() { stop(); }

namespace {

// A non-blocking listening socket on 127.0.0.1 and an ephemeral port: (fd, port).
std::pair<int, int> listen_on_loopback() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("testhub: cannot create a socket");
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  // A backlog wide enough for a client that opens a few hundred connections at once: dropped SYNs
  // would cost one-second retransmits.
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 4096) != 0) {
    ::close(fd);
    throw std::runtime_error("testhub: cannot listen on 127.0.0.1");
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return {fd, ntohs(addr.sin_port)};
}

}  // namespace

int EventServer::start() {
  auto& s = *impl_;
  if (s.thread.joinable()) throw std::logic_error("testhub: server already started");
  s.epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  s.wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (s.epoll_fd < 0 || s.wake_fd < 0) throw std::runtime_error("testhub: cannot create the event set");
  auto [listen_fd, port] = listen_on_loopback();
  s.listen_fd = listen_fd;
  std::vector<std::pair<int, uint64_t>> watched{{s.listen_fd, kListenId}, {s.wake_fd, kWakeId}};
  if (s.settings.tls) {
    std::tie(s.tls_listen_fd, s.tls_port) = listen_on_loopback();
    watched.emplace_back(s.tls_listen_fd, kTlsListenId);
  }
  for (auto [fd, id] : watched) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = id;
    if (::epoll_ctl(s.epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) throw std::runtime_error("testhub: epoll_ctl failed");
  }
  s.thread = std::thread([&s] { s.run_loop(); });
  return port;
}

int EventServer::tls_port() const { return impl_->tls_port; }

void EventServer::stop() {
  auto& s = *impl_;
  if (s.stopped) return;
  s.stopped = true;
  s.stopping = true;
  if (s.wake_fd >= 0) {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(s.wake_fd, &one, sizeof one);
  }
  if (s.thread.joinable()) s.thread.join();
}

}  // namespace hfi::testhub::http
