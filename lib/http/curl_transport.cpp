// The Transport over libcurl: one multi handle keeps connections (and HTTP/2 sessions over TLS)
// alive across runs, and one event loop drives a run to completion. The loop owns redirects and
// retries, because both need decisions libcurl cannot make for us: which hop may carry the token,
// and how long a 429 asks us to wait. It hears of ready sockets from SocketEvents and hands
// libcurl only those (curl_multi_socket_action), so a wake-up costs what its ready transfers
// cost, not what every transfer of a large run costs.

#include <algorithm>
#include <chrono>
#include <deque>
#include <random>

#include "http/curl_transfer.hpp"
#include "http/http.hpp"
#include "http/socket_events.hpp"

namespace hfi::http {
namespace {

// Idle connections kept for reuse: a handful. Over HTTP/2 (the Hub, its CDN) one connection per
// origin carries every transfer; over HTTP/1.1 each transfer of a parallel run needs a connection
// of its own anyway, and keeping hundreds open afterwards only ties up the server.
constexpr long kIdleConnectionsKept = 16;

class CurlTransport;

// One run: its transfers (a deque, so that follow-ups never move the ones in flight) and the
// queues of the event loop.
class Run final : public Transport::FollowUps {
 public:
  Run(CurlTransport& transport, std::string_view what, const Transport::OnDone& on_done)
      : transport_(transport), what_(what), on_done_(on_done) {}
  size_t send(Request request) override;
  void drive();

 private:
  void start_ready();
  void pump();
  void wait_for_sockets(int timeout_ms);
  void run_completions();
  void complete(Transfer& transfer);
  void fail_all(const std::string& why);
  void give_up_at_deadline();
  void expire(Transfer& transfer, const std::string& why);
  void collect_finished();
  long wait_budget_ms() const;
  void release_due_retries();

  CurlTransport& transport_;
  std::string_view what_;
  const Transport::OnDone& on_done_;
  std::deque<Transfer> transfers_;
  std::deque<size_t> ready_;     // to start (new, a redirect to follow, a retry that is due)
  std::vector<size_t> waiting_;  // retries not yet due
  std::deque<size_t> answered_;  // finished, their handlers not yet run
  size_t active_ = 0, done_ = 0;
};

class CurlTransport final : public Transport {
 public:
  explicit CurlTransport(ClientOptions options)
      : options_(std::move(options)),
        deadline_(options_.run_deadline_s > 0 ? Clock::now() + std::chrono::seconds(options_.run_deadline_s) : Clock::time_point::max()),
        rng_(std::random_device{}()) {
    curl_global_init(CURL_GLOBAL_DEFAULT);  // reference-counted: paired with the cleanup below
    multi_ = curl_multi_init();
    if (!multi_) return;
    curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    curl_multi_setopt(multi_, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, kIdleConnectionsKept);
    // libcurl caps streams per HTTP/2 connection at 100 by default and opens another connection
    // for every transfer past that; let the server's SETTINGS decide instead, up to what a run
    // ever has in flight.
    curl_multi_setopt(multi_, CURLMOPT_MAX_CONCURRENT_STREAMS, static_cast<long>(options_.max_in_flight));
    user_agent_ = options_.user_agent;
    user_agent_ += std::string(user_agent_.empty() ? "" : "; ") + "libcurl/" + curl_version_info(CURLVERSION_NOW)->version;
  }
  ~CurlTransport() override {
    if (multi_) curl_multi_cleanup(multi_);
    curl_global_cleanup();
  }
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  void run(std::vector<Request> requests, std::string_view what, const OnDone& on_done) override {
    ++runs_;
    Run run(*this, what, on_done);
    for (auto& r : requests) run.send(std::move(r));
    run.drive();
  }
  size_t requests_sent() const override { return sent_; }

 private:
  size_t runs_ = 0;
  uint64_t bytes_in_ = 0;
  friend class Run;

  // libcurl's requests of the loop: which sockets to watch, and when to call it back regardless.
  static int on_socket(CURL*, curl_socket_t socket, int what, void* self, void*) {
    auto& events = static_cast<CurlTransport*>(self)->events_;
    if (what == CURL_POLL_REMOVE) events.forget(socket);
    else events.watch(socket, what & CURL_POLL_IN, what & CURL_POLL_OUT);
    return 0;
  }
  static int on_timer(CURLM*, long timeout_ms, void* self) {
    auto* t = static_cast<CurlTransport*>(self);
    t->timer_armed_ = timeout_ms >= 0;
    if (t->timer_armed_) t->timer_due_ = Clock::now() + std::chrono::milliseconds(timeout_ms);
    return 0;
  }
  // Connects, timeouts and newly added transfers wait on libcurl's timer, not on a socket.
  void drive_due_timer() {
    if (!timer_armed_ || timer_due_ > Clock::now()) return;
    timer_armed_ = false;  // libcurl arms it again from inside the call when it needs to
    int running = 0;
    curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
  }
  // Why no request can be sent (no multi handle, no socket watch), or empty.
  std::string unusable() const {
    if (!multi_) return "curl_multi_init failed";
    return events_.ok() ? std::string() : events_.error();
  }
  void add(Transfer& transfer) {
    prepare_easy(transfer, options_, user_agent_);
    curl_multi_add_handle(multi_, transfer.easy);
    ++sent_;
  }

  ClientOptions options_;
  Clock::time_point deadline_;  // of every request (ClientOptions::run_deadline_s)
  SocketEvents events_;  // the sockets libcurl asked us to watch (on_socket)
  bool timer_armed_ = false;  // libcurl's timer (on_timer)
  Clock::time_point timer_due_{};
  CURLM* multi_ = nullptr;
  std::string user_agent_;  // options_.user_agent and libcurl's version
  size_t sent_ = 0;
  std::mt19937 rng_;
};

size_t Run::send(Request request) {
  Transfer& t = transfers_.emplace_back();
  t.index = transfers_.size() - 1;
  t.request = std::move(request);
  restart_chain(t, transport_.options_);
  ready_.push_back(transfers_.size() - 1);
  return transfers_.size() - 1;
}

void Run::release_due_retries() {
  auto now = Clock::now();
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (transfers_[*it].due > now) {
      ++it;
      continue;
    }
    ready_.push_back(*it);
    it = waiting_.erase(it);
  }
}

void Run::start_ready() {
  if (Clock::now() >= transport_.deadline_) return;  // give_up_at_deadline() answers them
  while (active_ < transport_.options_.max_in_flight && !ready_.empty()) {
    transport_.add(transfers_[ready_.front()]);
    ready_.pop_front();
    ++active_;
  }
}

void Run::collect_finished() {
  int queued = 0;
  while (CURLMsg* msg = curl_multi_info_read(transport_.multi_, &queued)) {
    if (msg->msg != CURLMSG_DONE) continue;
    Transfer* transfer = nullptr;
    curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&transfer));
    CURLcode code = msg->data.result;
    curl_multi_remove_handle(transport_.multi_, msg->easy_handle);
    --active_;
    switch (finish_hop(*transfer, code, transport_.options_, transport_.rng_)) {
      case Next::Done: answered_.push_back(transfer->index); break;
      case Next::Follow: ready_.push_back(transfer->index); break;
      case Next::Retry: waiting_.push_back(transfer->index); break;
    }
  }
}

// What needs no handler, without waiting: the sockets ready now, hops that finished followed,
// transfers started. Run before each handler, since one may parse for tens of milliseconds (a
// large index): whatever can leave then travels meanwhile instead of after it.
void Run::pump() {
  wait_for_sockets(0);
  collect_finished();
  start_ready();
  transport_.drive_due_timer();
}

// Hands libcurl the sockets that become ready within `timeout_ms`.
void Run::wait_for_sockets(int timeout_ms) {
  int running = 0;
  transport_.events_.wait(timeout_ms, [&](int socket, bool readable, bool writable) {
    int mask = (readable ? CURL_CSELECT_IN : 0) | (writable ? CURL_CSELECT_OUT : 0);
    curl_multi_socket_action(transport_.multi_, socket, mask, &running);
  });
}

void Run::run_completions() {
  while (!answered_.empty()) {
    pump();
    const size_t index = answered_.front();
    answered_.pop_front();
    complete(transfers_[index]);
  }
}

void Run::complete(Transfer& transfer) {
  ++done_;
  transport_.bytes_in_ += transfer.response.body.size();  // before the handler may take the body
  if (on_done_) on_done_(transfer.index, transfer.response, *this);  // may send follow-ups
  if (transport_.options_.progress)
    transport_.options_.progress({what_, done_, transfers_.size(), transport_.runs_, transport_.bytes_in_});
}

// Every request, follow-ups included, fails as a transport error would.
void Run::fail_all(const std::string& why) {
  while (!ready_.empty()) {
    Transfer& t = transfers_[ready_.front()];
    ready_.pop_front();
    t.response.attempts = 1;
    t.response.url = t.url;
    t.response.transport_error = why;
    complete(t);
  }
}

void Run::expire(Transfer& t, const std::string& why) {
  t.response.status = 0;
  t.response.url = t.url;
  t.response.timed_out = true;
  t.response.transport_error = why;
  answered_.push_back(t.index);
}

// Past the deadline nothing more is sent, and what is under way or waiting to retry is given up.
void Run::give_up_at_deadline() {
  if (Clock::now() < transport_.deadline_) return;
  const std::string why = "gave up at the deadline of " + std::to_string(transport_.options_.run_deadline_s) + " s for the whole run";
  for (Transfer& t : transfers_) {
    if (!t.easy) continue;
    curl_multi_remove_handle(transport_.multi_, t.easy);
    release_easy(t);
    --active_;
    expire(t, why);
  }
  for (size_t i : waiting_) expire(transfers_[i], why);
  for (size_t i : ready_) expire(transfers_[i], why);
  waiting_.clear();
  ready_.clear();
}

// How long the loop may sleep: not past libcurl's timer, nor past the next retry that is due.
long Run::wait_budget_ms() const {
  if (!ready_.empty()) return 0;
  long wait_ms = 100;
  if (active_ == 0 && !waiting_.empty()) {
    auto next = std::min_element(waiting_.begin(), waiting_.end(),
                                 [&](size_t a, size_t b) { return transfers_[a].due < transfers_[b].due; });
    auto until = std::chrono::duration_cast<std::chrono::milliseconds>(transfers_[*next].due - Clock::now()).count();
    wait_ms = std::clamp<long>(until, 0, 1000);
  }
  if (transport_.timer_armed_) {
    auto until = std::chrono::ceil<std::chrono::milliseconds>(transport_.timer_due_ - Clock::now()).count();
    wait_ms = std::min<long>(wait_ms, std::max<long>(0, until));
  }
  if (transport_.deadline_ != Clock::time_point::max()) {
    auto until = std::chrono::ceil<std::chrono::milliseconds>(transport_.deadline_ - Clock::now()).count();
    wait_ms = std::min<long>(wait_ms, std::max<long>(0, until));
  }
  return wait_ms;
}

void Run::drive() {
  if (std::string why = transport_.unusable(); !why.empty()) return fail_all(why);
  while (done_ < transfers_.size()) {
    give_up_at_deadline();
    release_due_retries();
    start_ready();
    transport_.drive_due_timer();
    collect_finished();
    run_completions();
    if (done_ == transfers_.size()) break;
    wait_for_sockets(static_cast<int>(wait_budget_ms()));
  }
}

}  // namespace

std::vector<Response> Transport::perform(std::vector<Request> requests, std::string_view what) {
  std::vector<Response> out(requests.size());
  run(std::move(requests), what, [&out](size_t i, Response& r, FollowUps&) { out[i] = std::move(r); });
  return out;
}

std::string Response::first_header(const std::string& name) const {
  for (const auto& hop : redirects)
    if (auto it = hop.headers.find(name); it != hop.headers.end()) return it->second;
  if (auto it = headers.find(name); it != headers.end()) return it->second;
  return {};
}

std::string Response::request_id() const {
  if (auto it = headers.find("x-request-id"); it != headers.end()) return it->second;
  for (auto it = redirects.rbegin(); it != redirects.rend(); ++it)
    if (auto h = it->headers.find("x-request-id"); h != it->headers.end()) return h->second;
  return {};
}

std::unique_ptr<Transport> make_curl_transport(ClientOptions options) {
  return std::make_unique<CurlTransport>(std::move(options));
}

}  // namespace hfi::http
