#include "http/curl_transfer.hpp"

#include <algorithm>
#include <optional>
#include <span>

#include "core/checked.hpp"
#include "core/text.hpp"
#include "http/retry.hpp"
#include "http/url.hpp"

namespace hfi::http {
namespace {

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

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* job = static_cast<Transfer*>(user);
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
void choose_mode(Transfer& job) {
  job.mode_chosen = true;
  curl_easy_getinfo(job.easy, CURLINFO_RESPONSE_CODE, &job.status);
  const Request& r = job.request;
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
void apply_length_prefix(Transfer& job) {
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
  auto* job = static_cast<Transfer*>(user);
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
  const bool ranged = job->request.range_offset.has_value();
  if (ranged && job->request.length_prefixed && !job->prefix_read && job->keep >= 8 && body.size() >= 8 &&
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

// The most bytes a hop of `request` moves: its range (from the file's start, for a server that
// ignores Range), or the largest body it takes.
uint64_t expected_bytes(const Request& request) {
  return request.range_offset ? *request.range_offset + request.range_length : request.max_body;
}

// The time `bytes` take at 64 KiB/s, the slowest rate a hop is given time for.
long transfer_ms(uint64_t bytes) { return static_cast<long>(std::min<uint64_t>(bytes, uint64_t{1} << 40) / 64); }

// libcurl's progress calls (at least once a second): the hop's deadline, brought forward to what
// the announced length needs, and enforced.
int on_progress(void* user, curl_off_t download_total, curl_off_t, curl_off_t, curl_off_t) {
  auto* job = static_cast<Transfer*>(user);
  if (download_total > 0) {
    auto by_length = job->started + std::chrono::milliseconds(job->slack_ms + transfer_ms(static_cast<uint64_t>(download_total)));
    job->deadline = std::min(job->deadline, by_length);
  }
  if (Clock::now() < job->deadline) return 0;
  job->past_deadline = true;
  return 1;  // ends the hop with CURLE_ABORTED_BY_CALLBACK
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

long stall_timeout_s(const Request& request, const ClientOptions& options) {
  return request.stall_timeout_s > 0 ? request.stall_timeout_s : options.stall_timeout_s;
}

int attempts_allowed(const Request& request, const ClientOptions& options) {
  return request.max_attempts > 0 ? request.max_attempts : options.max_retries + 1;
}

// Who answered: the Hub (its own origin) or whoever it redirected to (its CDN, a mirror's store).
std::string answered_by(const std::string& url, const ClientOptions& options) {
  return origin_of(url) == options.token_origin ? "the Hub" : "the CDN (" + origin_of(url) + ")";
}

Next schedule_retry(Transfer& job, std::optional<long> server_wait, const ClientOptions& options, std::mt19937& rng, const std::string& reason) {
  std::uniform_real_distribution<double> jitter(0.8, 1.2);
  long wait = server_wait ? *server_wait + static_cast<long>(jitter(rng) * 100)
                          : backoff_ms(job.response.attempts, options.backoff_base_ms, options.backoff_max_ms, jitter(rng));
  if (options.on_retry) options.on_retry({job.response.attempts + 1, attempts_allowed(job.request, options), wait, reason});
  job.due = Clock::now() + std::chrono::milliseconds(wait);
  restart_chain(job, options);  // start again at the Hub: a CDN's signed URL may have expired meanwhile
  return Next::Retry;
}

}  // namespace

void restart_chain(Transfer& job, const ClientOptions& options) {
  job.url = job.request.url;
  job.authorize = !options.token.empty() && origin_of(job.url) == options.token_origin;
  int attempts = job.response.attempts;
  job.response = Response{};
  job.response.attempts = attempts;
}

void prepare_easy(Transfer& job, const ClientOptions& options, const std::string& user_agent) {
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
  CURL* easy = curl_easy_init();
  job.easy = easy;
  curl_easy_setopt(easy, CURLOPT_URL, job.url.c_str());
  curl_easy_setopt(easy, CURLOPT_PRIVATE, &job);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  if (job.url.rfind("https://", 0) == 0) {
    curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, receive_buffer_bytes(job.request));
  }
  const long stall_s = stall_timeout_s(job.request, options);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, job.request.stall_timeout_s > 0 ? stall_s * 1000 : options.connect_timeout_ms);
  curl_easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, options.low_speed_bytes_per_s);
  curl_easy_setopt(easy, CURLOPT_LOW_SPEED_TIME, stall_s);
  // The low-speed rule misses a server that keeps just above it; the hop's deadline catches that.
  job.started = Clock::now();
  job.slack_ms = stall_s * 6000;
  job.deadline = job.started + std::chrono::milliseconds(job.slack_ms + transfer_ms(expected_bytes(job.request)));
  job.past_deadline = false;
  curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(easy, CURLOPT_XFERINFODATA, &job);
  curl_easy_setopt(easy, CURLOPT_USERAGENT, user_agent.c_str());
  if (!options.ca_bundle.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, options.ca_bundle.c_str());
  if (job.request.head) curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &job);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &job);
  curl_slist* list = nullptr;
  if (job.request.range_offset) {
    uint64_t first = *job.request.range_offset;
    uint64_t last = first + std::max<uint64_t>(job.request.range_length, 1) - 1;
    list = curl_slist_append(list, ("Range: bytes=" + std::to_string(first) + "-" + std::to_string(last)).c_str());
  }
  if (job.authorize) list = curl_slist_append(list, ("Authorization: Bearer " + options.token).c_str());
  job.header_list = list;
  if (list) curl_easy_setopt(easy, CURLOPT_HTTPHEADER, list);
}

void release_easy(Transfer& job) {
  curl_easy_cleanup(job.easy);
  job.easy = nullptr;
  curl_slist_free_all(job.header_list);
  job.header_list = nullptr;
}

Next finish_hop(Transfer& job, CURLcode code, const ClientOptions& options, std::mt19937& rng) {
  Response& r = job.response;
  if (!job.mode_chosen) choose_mode(job);  // bodiless responses (HEAD, 204, empty 3xx)
  bool answered = code == CURLE_OK || (code == CURLE_WRITE_ERROR && job.cut);
  char* redirect = nullptr;
  if (answered) curl_easy_getinfo(job.easy, CURLINFO_REDIRECT_URL, &redirect);
  std::string location = redirect ? redirect : "";
  // libcurl names no redirect target for a hop we cut (a redirect whose body runs on): its own
  // Location header still does.
  if (location.empty() && answered)
    if (auto it = job.headers.find("location"); it != job.headers.end()) location = it->second;
  release_easy(job);
  if (!answered) {
    ++r.attempts;
    r.status = 0;
    r.url = job.url;
    r.timed_out = code == CURLE_OPERATION_TIMEDOUT || job.past_deadline;
    r.transport_error = job.past_deadline ? "the transfer was still unfinished at its deadline"
                        : code == CURLE_OPERATION_TIMEDOUT
                            ? "timed out: no connection, or fewer than " + std::to_string(options.low_speed_bytes_per_s) +
                                  " bytes/s, for " + std::to_string(stall_timeout_s(job.request, options)) + " s"
                            : curl_easy_strerror(code);
    if ((retryable_transport(code) || job.past_deadline) && r.attempts < attempts_allowed(job.request, options))
      return schedule_retry(job, std::nullopt, options, rng, r.transport_error + " (" + answered_by(job.url, options) + ")");
    return Next::Done;
  }
  if (job.status >= 300 && job.status < 400 && job.status != 304 && !location.empty()) {
    r.redirects.push_back({static_cast<int>(job.status), job.url, job.headers});
    if (static_cast<int>(r.redirects.size()) > options.max_redirects) {
      ++r.attempts;
      r.status = 0;
      r.transport_error = "more than " + std::to_string(options.max_redirects) + " redirects, starting at " + job.request.url;
      return Next::Done;
    }
    std::string next = resolve_location(job.url, location);
    // The token travels only to the Hub's own origin: never to a CDN, another port, or over a
    // downgrade to plain http (the origin's scheme differs then).
    job.authorize = job.authorize && origin_of(next) == options.token_origin;
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
  if (r.range_honoured && job.request.range_offset && content_range_start(r.headers) != job.request.range_offset)
    r.protocol_error = "answered 206 with Content-Range '" + r.headers["content-range"] + "' to a request for bytes from " +
                       std::to_string(*job.request.range_offset);
  if (!r.total_size && job.status == 200)
    if (auto it = r.headers.find("content-length"); it != r.headers.end()) r.total_size = parse_decimal(it->second);
  if (retryable_status(r.status) && r.attempts < attempts_allowed(job.request, options)) {
    auto wait = server_requested_wait_ms(r.headers);
    if (wait && *wait > options.longest_wait_ms) {
      r.retry_after_ms = *wait;
      return Next::Done;
    }
    return schedule_retry(job, wait, options, rng, std::to_string(r.status) + " from " + answered_by(job.url, options));
  }
  if (r.status == 429) r.retry_after_ms = server_requested_wait_ms(r.headers);
  return Next::Done;
}

}  // namespace hfi::http
