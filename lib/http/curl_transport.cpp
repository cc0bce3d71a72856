// The one file that talks to libcurl (through curl_library.hpp, which loads it). One multi handle
// per Transport keeps connections (and HTTP/2 sessions over TLS) alive across batches; a batch is
// driven to completion by a small event loop that also owns redirects and retries, because both
// need decisions libcurl cannot make for us: which hop may carry the token, and how long a 429
// asks us to wait. The loop hears of ready sockets from SocketEvents and hands libcurl only those
// (curl_multi_socket_action), so a wake-up costs what its ready transfers cost, not all of them.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <random>
#include <span>
#include <thread>

#include "http/http.hpp"
#include "core/checked.hpp"
#include "core/text.hpp"
#include "http/curl_library.hpp"
#include "http/retry.hpp"
#include "http/socket_events.hpp"
#include "http/url.hpp"

namespace hfi::http {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kMaxErrorBody = 64u << 10;
constexpr uint64_t kMaxRedirectBody = 64u << 10;

// Transport errors that a fresh attempt can cure: refused or dropped connections, stalls, resets.
bool retryable_transport(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
      return true;
    default:
      return false;
  }
}

// libcurl's entry points. Every call below runs inside a batch, after CurlTransport::start_session
// has loaded the library.
const CurlLibrary& curl() { return *curl_library(); }

struct Job {
  const Request* request = nullptr;
  Response response;
  std::string url;
  bool authorize = false;
  int attempt = 0;
  CURL* easy = nullptr;
  curl_slist* header_list = nullptr;
  // State of the response being received.
  Headers headers;
  long status = 0;
  bool mode_chosen = false;
  uint64_t skip = 0;   // bytes of a 200 body to drop before the wanted range starts
  uint64_t keep = 0;   // bytes to keep
  bool prefix_read = false;  // length_prefixed: `keep` has been cut to 8 + N
  bool cut = false;    // we ended the transfer on purpose (enough bytes)
  bool too_large = false;
  uint64_t drained = 0;  // bytes of a redirect's body thrown away
  Clock::time_point due{};
};

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* job = static_cast<Job*>(user);
  std::string line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {
    job->headers.clear();
  } else if (auto colon = line.find(':'); colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    job->headers[name] = trim(line.substr(colon + 1));
  }
  return size * count;
}

// Decides, at the first body byte, what of the body to keep: nothing of a redirect's text, the
// requested slice of a 206 or of a 200 that ignored Range, a capped prefix of an error page.
void choose_mode(Job& job) {
  job.mode_chosen = true;
  curl().easy_getinfo(job.easy, CURLINFO_RESPONSE_CODE, &job.status);
  const Request& r = *job.request;
  if (job.status >= 300 && job.status < 400) {
    job.keep = 0;
  } else if (job.status == 206) {
    job.keep = r.range_length;
  } else if (job.status == 200 && r.range_offset) {
    job.skip = *r.range_offset;
    job.keep = r.range_length;
  } else if (job.status == 200) {
    job.keep = r.max_body;
  } else {
    job.keep = kMaxErrorBody;
  }
  // One allocation for the body instead of a doubling series of copies (a 9 MB index went
  // through eleven). The server's Content-Length is only trusted as far as `keep` allows.
  if (job.keep > 0 && !r.length_prefixed) {  // a length-prefixed body is sized once N is known
    auto length = job.headers.find("content-length");
    auto declared = length == job.headers.end() ? std::nullopt : parse_decimal(length->second);
    if (declared) job.response.body.reserve(static_cast<size_t>(std::min(*declared, job.keep)));
  }
}

// A length-prefixed body: once its first 8 bytes are in, only 8 + N of it is kept.
void apply_length_prefix(Job& job) {
  std::string& body = job.response.body;
  job.prefix_read = true;
  uint64_t n = read_u64_le({reinterpret_cast<const unsigned char*>(body.data()), body.size()}).value_or(UINT64_MAX);
  if (n < job.keep - 8) {
    job.keep = 8 + n;
    job.response.ended_at_length_prefix = true;
  }
  if (body.size() > job.keep) body.resize(static_cast<size_t>(job.keep));
  body.reserve(static_cast<size_t>(job.keep));
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* job = static_cast<Job*>(user);
  size_t n = size * count;
  if (!job->mode_chosen) choose_mode(*job);
  if (job->status >= 300 && job->status < 400) {
    // A redirect's text is never read; an endless one is cut rather than drained.
    job->drained += n;
    if (job->drained <= kMaxRedirectBody) return n;
    job->cut = true;
    return 0;
  }
  size_t pos = 0;
  if (job->skip > 0) {
    size_t dropped = static_cast<size_t>(std::min<uint64_t>(job->skip, n));
    job->skip -= dropped;
    pos = dropped;
  }
  std::string& body = job->response.body;
  size_t room = static_cast<size_t>(std::min<uint64_t>(job->keep - std::min<uint64_t>(job->keep, body.size()), n - pos));
  body.append(data + pos, room);
  const bool ranged = job->request->range_offset.has_value();
  if (ranged && job->request->length_prefixed && !job->prefix_read && job->keep >= 8 && body.size() >= 8 &&
      (job->status == 206 || job->status == 200)) {
    apply_length_prefix(*job);
    if (body.size() >= job->keep) {
      job->cut = true;  // the whole header is in
      return 0;
    }
    return n;
  }
  if (job->response.ended_at_length_prefix && body.size() >= job->keep) {
    job->cut = true;  // the rest of the header arrived
    return 0;
  }
  if (pos + room < n) {
    // More than we want: a ranged read has all it needs, a whole-file read is too large, and an
    // error page has shown enough. Cutting ends the transfer with CURLE_WRITE_ERROR, expected.
    if (job->status == 200 && !ranged) job->too_large = true;
    job->cut = true;
    return 0;
  } else if (job->status == 200 && ranged && job->skip == 0 && body.size() >= job->keep) {
    job->cut = true;  // a server that ignored Range: stop at the last byte we need
    return 0;
  }
  return n;
}

// The first byte position of "Content-Range: bytes a-b/T".
std::optional<uint64_t> content_range_start(const Headers& headers) {
  auto it = headers.find("content-range");
  if (it == headers.end() || it->second.rfind("bytes ", 0) != 0) return std::nullopt;
  size_t dash = it->second.find('-');
  if (dash == std::string::npos) return std::nullopt;
  return parse_decimal(std::string_view(it->second).substr(6, dash - 6));
}

std::optional<uint64_t> content_range_total(const Headers& headers) {
  auto it = headers.find("content-range");
  if (it == headers.end()) return std::nullopt;
  auto slash = it->second.rfind('/');
  if (slash == std::string::npos) return std::nullopt;
  return parse_decimal(std::string_view(it->second).substr(slash + 1));
}

constexpr long kIdleConnectionsKept = 16;

// libcurl 7.88's HTTP/2 layer copies a DATA frame for another stream into that stream's receive
// buffer; when the frame does not fit, it pauses the whole session and, now and then, leaves the
// rest of what it read unprocessed until the socket brings more. Against the test hub a cold
// 163-shard read then waited for the server's idle timeout in 10 of 40 runs, and in 0 of 80 with a
// buffer that holds a whole probe. So a transfer over TLS (where HTTP/2 is negotiated) gets a
// buffer as large as the body it expects plus room for the response head, which passes through
// the same buffer (exactly the body's size still stalled: 10 of 30 runs), within bounds.
long receive_buffer_bytes(const Request& request) {
  constexpr uint64_t kDefault = 16 * 1024, kHeadRoom = 16 * 1024, kMost = 1024 * 1024;
  uint64_t expected = request.range_offset ? request.range_length : request.max_body;
  return static_cast<long>(std::clamp(expected + kHeadRoom, kDefault, kMost));
}

class CurlTransport final : public Transport {
 public:
  explicit CurlTransport(ClientOptions options, std::shared_ptr<std::atomic<size_t>> sent = std::make_shared<std::atomic<size_t>>(0))
      : options_(std::move(options)), sent_(std::move(sent)), rng_(std::random_device{}()) {}
  ~CurlTransport() override {
    if (multi_) curl().multi_cleanup(multi_);
  }
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  size_t requests_sent() const override { return *sent_; }

  std::unique_ptr<Transport> sibling() const override { return std::make_unique<CurlTransport>(options_, sent_); }

  std::vector<Response> perform(const std::vector<Request>& requests, std::string_view what, const OnDone& on_done) override {
    size_t lanes = lanes_for(requests);
    if (lanes > 1) return perform_in_lanes(requests, what, on_done, lanes);
    size_t done = 0;
    return run_batch(requests, options_.max_in_flight, [&](size_t i, Response& r) {
      if (on_done) on_done(i, r);
      if (options_.progress) options_.progress({what, ++done, requests.size()});
    });
  }

 private:
  enum class Next { Done, Follow, Retry };

  // Over plain HTTP every transfer of a burst needs a TCP connection of its own (HTTP/1.1 has no
  // multiplexing), and opening, feeding and closing hundreds of them is kernel work that one
  // thread does one after the other: for DeepSeek-V3's 163 header reads, 326 connections. So a
  // large plain-HTTP batch is split into lanes, each a transport of its own on its own thread,
  // which lose nothing by not sharing connections. Over TLS the Hub and its CDN speak HTTP/2,
  // where one connection per origin carries every transfer; those batches stay in one lane.
  static constexpr size_t kLeastPerLane = 32;
  static constexpr size_t kMostLanes = 4;
  static size_t lanes_for(const std::vector<Request>& requests) {
    if (requests.size() < 2 * kLeastPerLane) return 1;
    for (const auto& r : requests)
      if (r.url.rfind("http://", 0) != 0) return 1;
    size_t cores = std::max(1u, std::thread::hardware_concurrency());
    return std::min({cores, kMostLanes, requests.size() / kLeastPerLane});
  }

  // The batch cut into `lanes` consecutive slices; this thread runs the first, helpers the rest.
  // Completions are reported one at a time (a lock), with the index into the whole batch and the
  // progress of the whole batch. Together the lanes keep to max_in_flight.
  std::vector<Response> perform_in_lanes(const std::vector<Request>& requests, std::string_view what, const OnDone& on_done,
                                         size_t lanes) {
    const size_t per_lane = (requests.size() + lanes - 1) / lanes;
    const size_t in_flight = std::max<size_t>(1, options_.max_in_flight / lanes);
    std::mutex reporting;
    size_t done = 0;
    auto reporter = [&](size_t offset) {
      return [&, offset](size_t i, Response& r) {
        std::lock_guard<std::mutex> lock(reporting);
        if (on_done) on_done(offset + i, r);
        if (options_.progress) options_.progress({what, ++done, requests.size()});
      };
    };
    std::vector<std::span<const Request>> slices;
    for (size_t from = 0; from < requests.size(); from += per_lane)
      slices.push_back(std::span<const Request>(requests).subspan(from, std::min(per_lane, requests.size() - from)));
    std::vector<std::vector<Response>> results(slices.size());
    std::vector<std::unique_ptr<CurlTransport>> helpers;
    std::vector<std::thread> threads;
    size_t here_from = slices.size();  // slices this thread runs itself: the first, and any no thread could take
    for (size_t k = 1; k < slices.size(); ++k) {
      try {
        helpers.push_back(std::make_unique<CurlTransport>(options_, sent_));
        threads.emplace_back([&, k, helper = helpers.back().get()] {
          results[k] = helper->run_batch(slices[k], in_flight, reporter(k * per_lane));
        });
      } catch (const std::system_error&) {
        here_from = k;
        break;
      }
    }
    results[0] = run_batch(slices[0], in_flight, reporter(0));
    for (size_t k = here_from; k < slices.size(); ++k) results[k] = run_batch(slices[k], in_flight, reporter(k * per_lane));
    for (auto& t : threads) t.join();
    std::vector<Response> out;
    out.reserve(requests.size());
    for (auto& lane : results)
      for (auto& r : lane) out.push_back(std::move(r));
    return out;
  }

  // Drives `requests` to completion on this transport's multi handle, at most `in_flight` at once;
  // `finished` is called for each as it completes, with its index into `requests`.
  std::vector<Response> run_batch(std::span<const Request> requests, size_t in_flight, const std::function<void(size_t, Response&)>& finished) {
    if (!start_session()) {
      // No libcurl: every request fails as a transport error would, and says why.
      std::vector<Response> out(requests.size());
      for (size_t i = 0; i < requests.size(); ++i) {
        out[i].url = requests[i].url;
        out[i].attempts = 1;
        out[i].transport_error = unavailable_;
        finished(i, out[i]);
      }
      return out;
    }
    std::vector<Job> jobs(requests.size());
    std::deque<size_t> ready;
    std::vector<size_t> waiting;
    for (size_t i = 0; i < requests.size(); ++i) {
      jobs[i].request = &requests[i];
      reset_chain(jobs[i]);
      ready.push_back(i);
    }
    size_t active = 0, done = 0;
    while (done < jobs.size()) {
      auto now = Clock::now();
      for (auto it = waiting.begin(); it != waiting.end();) {
        if (jobs[*it].due <= now) {
          ready.push_back(*it);
          it = waiting.erase(it);
        } else {
          ++it;
        }
      }
      while (active < in_flight && !ready.empty()) {
        start(jobs[ready.front()]);
        ready.pop_front();
        ++active;
      }
      drive_due_timer();
      int queued = 0;
      while (CURLMsg* msg = curl().multi_info_read(multi_, &queued)) {
        if (msg->msg != CURLMSG_DONE) continue;
        Job* job = nullptr;
        curl().easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, reinterpret_cast<char**>(&job));
        CURLcode code = msg->data.result;
        curl().multi_remove_handle(multi_, msg->easy_handle);
        --active;
        size_t index = static_cast<size_t>(job - jobs.data());
        switch (finish(*job, code)) {
          case Next::Done:
            ++done;
            finished(index, job->response);
            break;
          case Next::Follow: ready.push_back(index); break;
          case Next::Retry: waiting.push_back(index); break;
        }
      }
      if (done == jobs.size()) break;
      long wait_ms = 100;
      if (active == 0 && ready.empty() && !waiting.empty()) {
        auto next = std::min_element(waiting.begin(), waiting.end(),
                                     [&](size_t a, size_t b) { return jobs[a].due < jobs[b].due; });
        wait_ms = std::clamp<long>(std::chrono::duration_cast<std::chrono::milliseconds>(jobs[*next].due - Clock::now()).count(), 0, 1000);
      }
      if (!ready.empty()) wait_ms = 0;
      if (timer_armed_)
        wait_ms = std::min<long>(wait_ms, std::max<long>(0, std::chrono::ceil<std::chrono::milliseconds>(timer_due_ - Clock::now()).count()));
      int running = 0;
      events_.wait(static_cast<int>(wait_ms), [&](int socket, bool readable, bool writable) {
        int mask = (readable ? CURL_CSELECT_IN : 0) | (writable ? CURL_CSELECT_OUT : 0);
        curl().multi_socket_action(multi_, socket, mask, &running);
      });
    }
    std::vector<Response> out;
    out.reserve(jobs.size());
    for (auto& job : jobs) out.push_back(std::move(job.response));
    return out;
  }

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
    curl().multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
  }

  // Loads libcurl and makes the multi handle at the first batch; false (and unavailable_ says
  // why) when the library cannot be loaded.
  bool start_session() {
    if (multi_) return true;
    if (!events_.ok()) {
      unavailable_ = events_.error();
      return false;
    }
    const CurlLibrary* lib = curl_library(&unavailable_);
    if (!lib || !(multi_ = lib->multi_init())) {
      if (unavailable_.empty()) unavailable_ = "curl_multi_init failed";
      return false;
    }
    lib->multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, on_socket);
    lib->multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
    lib->multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, on_timer);
    lib->multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    user_agent_ = options_.user_agent;
    user_agent_ += std::string(user_agent_.empty() ? "" : "; ") + "libcurl/" + lib->version_info(CURLVERSION_NOW)->version;
    lib->multi_setopt(multi_, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    // Idle connections kept for reuse: a handful. Over HTTP/2 (the Hub, its CDN) one connection
    // per origin carries every transfer; over HTTP/1.1 each transfer of a parallel round needs a
    // connection of its own anyway, and keeping a round's hundreds open afterwards only ties up
    // the server (a thread each on simple servers, polling until its keep-alive timeout).
    lib->multi_setopt(multi_, CURLMOPT_MAXCONNECTS, kIdleConnectionsKept);
    // libcurl caps streams per HTTP/2 connection at 100 by default and opens a connection of its
    // own for every transfer past that: 163 shard reads made 64 connections to one origin. Let the
    // server's SETTINGS decide instead, up to what this transport ever runs at once.
    lib->multi_setopt(multi_, CURLMOPT_MAX_CONCURRENT_STREAMS, static_cast<long>(options_.max_in_flight));
    return true;
  }

  void reset_chain(Job& job) {
    job.url = job.request->url;
    job.authorize = !options_.token.empty() && origin_of(job.url) == options_.token_origin;
    int attempts = job.response.attempts;
    job.response = Response{};
    job.response.attempts = attempts;
  }

  void start(Job& job) {
    job.headers.clear();
    job.status = 0;
    job.mode_chosen = false;
    job.skip = 0;
    job.keep = 0;
    job.prefix_read = false;
    job.response.ended_at_length_prefix = false;
    job.cut = false;
    job.too_large = false;
    job.drained = 0;
    job.response.body.clear();
    CURL* easy = curl().easy_init();
    job.easy = easy;
    curl().easy_setopt(easy, CURLOPT_URL, job.url.c_str());
    curl().easy_setopt(easy, CURLOPT_PRIVATE, &job);
    curl().easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl().easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl().easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
    curl().easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
    if (job.url.rfind("https://", 0) == 0) {
      curl().easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
      curl().easy_setopt(easy, CURLOPT_BUFFERSIZE, receive_buffer_bytes(*job.request));
    }
    curl().easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, options_.connect_timeout_ms);
    curl().easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl().easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, options_.stall_timeout_s);
    // The stall timeout misses a server that trickles a byte now and then; a whole-attempt limit
    // catches it: six stall periods, plus the wanted bytes at 64 KiB/s.
    uint64_t wanted = job.request->range_offset ? *job.request->range_offset + job.request->range_length : job.request->max_body;
    long total_ms = options_.stall_timeout_s * 6000 + static_cast<long>(std::min<uint64_t>(wanted / 64, 3'600'000));
    curl().easy_setopt(easy, CURLOPT_TIMEOUT_MS, total_ms);
    curl().easy_setopt(easy, CURLOPT_USERAGENT, user_agent_.c_str());
    if (!options_.ca_bundle.empty()) curl().easy_setopt(easy, CURLOPT_CAINFO, options_.ca_bundle.c_str());
    if (job.request->head) curl().easy_setopt(easy, CURLOPT_NOBODY, 1L);
    curl().easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
    curl().easy_setopt(easy, CURLOPT_HEADERDATA, &job);
    curl().easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
    curl().easy_setopt(easy, CURLOPT_WRITEDATA, &job);
    curl_slist* list = nullptr;
    if (job.request->range_offset) {
      uint64_t first = *job.request->range_offset;
      uint64_t last = first + std::max<uint64_t>(job.request->range_length, 1) - 1;
      list = curl().slist_append(list, ("Range: bytes=" + std::to_string(first) + "-" + std::to_string(last)).c_str());
    }
    if (job.authorize) list = curl().slist_append(list, ("Authorization: Bearer " + options_.token).c_str());
    job.header_list = list;
    if (list) curl().easy_setopt(easy, CURLOPT_HTTPHEADER, list);
    curl().multi_add_handle(multi_, easy);
    ++*sent_;
  }

  void release(Job& job) {
    curl().easy_cleanup(job.easy);
    job.easy = nullptr;
    curl().slist_free_all(job.header_list);
    job.header_list = nullptr;
  }

  Next finish(Job& job, CURLcode code) {
    Response& r = job.response;
    if (!job.mode_chosen) choose_mode(job);  // bodiless responses (HEAD, 204, empty 3xx)
    bool answered = code == CURLE_OK || (code == CURLE_WRITE_ERROR && job.cut);
    char* redirect = nullptr;
    if (answered) curl().easy_getinfo(job.easy, CURLINFO_REDIRECT_URL, &redirect);
    std::string location = redirect ? redirect : "";
    release(job);
    if (!answered) {
      ++r.attempts;
      r.status = 0;
      r.url = job.url;
      r.timed_out = code == CURLE_OPERATION_TIMEDOUT;
      r.transport_error = curl().easy_strerror(code);
      if (retryable_transport(code) && r.attempts <= options_.max_retries) return schedule_retry(job, std::nullopt);
      return Next::Done;
    }
    if (job.status >= 300 && job.status < 400 && job.status != 304 && !location.empty()) {
      r.redirects.push_back({static_cast<int>(job.status), job.url, job.headers});
      if (static_cast<int>(r.redirects.size()) > options_.max_redirects) {
        ++r.attempts;
        r.status = 0;
        r.transport_error = "more than " + std::to_string(options_.max_redirects) + " redirects, starting at " + job.request->url;
        return Next::Done;
      }
      std::string next = resolve_location(job.url, location);
      // The token travels only to the Hub's own origin: never to a CDN, another port, or over a
      // downgrade to plain http (the origin's scheme differs then).
      job.authorize = job.authorize && origin_of(next) == options_.token_origin;
      job.url = next;
      return Next::Follow;
    }
    ++r.attempts;
    r.status = static_cast<int>(job.status);
    r.url = job.url;
    r.headers = std::move(job.headers);
    r.too_large = job.too_large;
    r.range_honoured = job.status == 206;
    r.total_size = content_range_total(r.headers);
    if (r.range_honoured && job.request->range_offset && content_range_start(r.headers) != job.request->range_offset)
      r.protocol_error = "answered 206 with Content-Range '" + r.headers["content-range"] + "' to a request for bytes from " +
                         std::to_string(*job.request->range_offset);
    if (!r.total_size && job.status == 200)
      if (auto it = r.headers.find("content-length"); it != r.headers.end()) r.total_size = parse_decimal(it->second);
    if (retryable_status(r.status) && r.attempts <= options_.max_retries) {
      auto wait = server_requested_wait_ms(r.headers);
      if (wait && *wait > options_.longest_wait_ms) {
        r.retry_after_ms = *wait;
        return Next::Done;
      }
      return schedule_retry(job, wait);
    }
    if (r.status == 429) r.retry_after_ms = server_requested_wait_ms(r.headers);
    return Next::Done;
  }

  Next schedule_retry(Job& job, std::optional<long> server_wait) {
    std::uniform_real_distribution<double> jitter(0.8, 1.2);
    long wait = server_wait ? *server_wait + static_cast<long>(jitter(rng_) * 100)
                            : backoff_ms(job.response.attempts, options_.backoff_base_ms, options_.backoff_max_ms, jitter(rng_));
    job.due = Clock::now() + std::chrono::milliseconds(wait);
    reset_chain(job);  // start again at the Hub: a CDN's signed URL may have expired meanwhile
    return Next::Retry;
  }

  ClientOptions options_;
  SocketEvents events_;              // the sockets libcurl asked us to watch (on_socket)
  bool timer_armed_ = false;         // libcurl's timer (on_timer)
  Clock::time_point timer_due_{};
  CURLM* multi_ = nullptr;          // made by start_session()
  std::string unavailable_;          // why libcurl could not be loaded
  std::string user_agent_;           // options_.user_agent and libcurl's version
  std::shared_ptr<std::atomic<size_t>> sent_;  // shared with siblings
  std::mt19937 rng_;
};

}  // namespace

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
