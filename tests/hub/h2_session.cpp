#include "hub/h2_session.hpp"

#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <memory>

#include "hub/hub_util.hpp"

namespace hfi::testhub::http {

namespace {

constexpr size_t kOutputBatch = 64 * 1024;  // frames gathered before one SSL_write

H2Session& self(void* user_data) { return *static_cast<H2Session*>(user_data); }

std::string_view view(const uint8_t* p, size_t n) { return {reinterpret_cast<const char*>(p), n}; }

nghttp2_nv header(const std::string& name, const std::string& value) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

// Fields that name connection options have no meaning in HTTP/2 (RFC 9113 §8.2.2).
bool connection_specific(const std::string& lower_name) {
  return lower_name == "connection" || lower_name == "keep-alive" || lower_name == "proxy-connection" ||
         lower_name == "transfer-encoding" || lower_name == "upgrade" || lower_name == "content-length";
}

}  // namespace

// nghttp2 calls these while H2Session feeds it input or asks it for output.
struct H2Callbacks {
  static int begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
      H2Stream& s = self(user).streams_[frame->hd.stream_id];
      s.request.version = "HTTP/2";
    }
    return 0;
  }

  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
                       const uint8_t* value, size_t valuelen, uint8_t, void* user) {
    auto it = self(user).streams_.find(frame->hd.stream_id);
    if (it == self(user).streams_.end()) return 0;
    Request& req = it->second.request;
    std::string_view n = view(name, namelen), v = view(value, valuelen);
    if (n == ":method") {
      req.method = std::string(v);
    } else if (n == ":path") {
      req.target = std::string(v);
    } else if (n == ":authority") {
      req.headers.set("Host", std::string(v));
    } else if (!n.empty() && n.front() != ':') {
      req.headers.items.push_back({std::string(n), std::string(v)});
    }
    return 0;
  }

  static int on_data(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data, size_t len, void* user) {
    H2Session& h = self(user);
    auto it = h.streams_.find(stream_id);
    if (it == h.streams_.end()) return 0;
    H2Stream& s = it->second;
    if (s.request.body.size() + len > h.max_body_bytes_) {
      s.too_large = true;
      s.request.body.clear();
    } else if (!s.too_large) {
      s.request.body.append(reinterpret_cast<const char*>(data), len);
    }
    return 0;
  }

  static int on_frame(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    bool request_done = (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
                        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM);
    if (request_done && self(user).streams_.count(frame->hd.stream_id)) self(user).ready_.push_back(frame->hd.stream_id);
    return 0;
  }

  static int on_close(nghttp2_session*, int32_t stream_id, uint32_t, void* user) {
    self(user).streams_.erase(stream_id);
    return 0;
  }

  // Copies the next piece of the body window; past send_limit the stream is reset.
  static ssize_t read_body(nghttp2_session*, int32_t stream_id, uint8_t* buf, size_t length, uint32_t* flags,
                           nghttp2_data_source*, void* user) {
    auto it = self(user).streams_.find(stream_id);
    if (it == self(user).streams_.end()) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    H2Stream& s = it->second;
    if (s.sent >= s.to_send) {
      if (s.to_send < s.body.length) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;  // the cut
      *flags |= NGHTTP2_DATA_FLAG_EOF;
      return 0;
    }
    size_t n = static_cast<size_t>(std::min<uint64_t>(length, s.to_send - s.sent));
    uint64_t pos = s.body.first + s.sent;
    const std::string* prefix = s.body.prefix.get();
    size_t from_prefix = 0;
    if (prefix && pos < prefix->size()) {
      from_prefix = static_cast<size_t>(std::min<uint64_t>(n, prefix->size() - pos));
      std::memcpy(buf, prefix->data() + pos, from_prefix);
    }
    std::memset(buf + from_prefix, 0, n - from_prefix);
    s.sent += n;
    if (s.body.counter) *s.body.counter += n;
    if (s.sent == s.body.length) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }
};

H2Session::H2Session(SSL_CTX* ctx, int fd, uint32_t max_streams, size_t max_body_bytes, OnRequest on_request)
    : max_body_bytes_(max_body_bytes), on_request_(std::move(on_request)) {
  ssl_ = SSL_new(ctx);
  if (!ssl_ || SSL_set_fd(ssl_, fd) != 1) {
    broken_ = true;
    return;
  }
  SSL_set_accept_state(ssl_);
  nghttp2_session_callbacks* cb = nullptr;
  nghttp2_session_callbacks_new(&cb);
  nghttp2_session_callbacks_set_on_begin_headers_callback(cb, H2Callbacks::begin_headers);
  nghttp2_session_callbacks_set_on_header_callback(cb, H2Callbacks::on_header);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, H2Callbacks::on_data);
  nghttp2_session_callbacks_set_on_frame_recv_callback(cb, H2Callbacks::on_frame);
  nghttp2_session_callbacks_set_on_stream_close_callback(cb, H2Callbacks::on_close);
  if (nghttp2_session_server_new(&session_, cb, this) != 0) broken_ = true;
  nghttp2_session_callbacks_del(cb);
  if (broken_) return;
  nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, max_streams}};
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, 1);
}

H2Session::~H2Session() {
  if (session_) nghttp2_session_del(session_);
  if (ssl_) SSL_free(ssl_);
}

bool H2Session::handshake() {
  ERR_clear_error();
  int r = SSL_do_handshake(ssl_);
  if (r == 1) {
    const unsigned char* alpn = nullptr;
    unsigned int len = 0;
    SSL_get0_alpn_selected(ssl_, &alpn, &len);
    if (view(alpn, len) != "h2") return false;  // no ALPN at all: this server speaks only h2 over TLS
    handshaken_ = true;
    return true;
  }
  int err = SSL_get_error(ssl_, r);
  if (err == SSL_ERROR_WANT_READ) return true;
  if (err == SSL_ERROR_WANT_WRITE) {
    blocked_ = true;
    return true;
  }
  return false;
}

bool H2Session::on_readable() {
  if (broken_) return false;
  if (!handshaken_) {
    if (!handshake()) return false;
    if (!handshaken_) return true;
  }
  if (!read_tls()) return false;
  dispatch_ready();
  return flush();
}

bool H2Session::read_tls() {
  std::array<uint8_t, 32 * 1024> buf;
  while (true) {
    ERR_clear_error();
    int n = SSL_read(ssl_, buf.data(), static_cast<int>(buf.size()));
    if (n > 0) {
      if (nghttp2_session_mem_recv(session_, buf.data(), static_cast<size_t>(n)) < 0) return false;
      continue;
    }
    int err = SSL_get_error(ssl_, n);
    if (err == SSL_ERROR_WANT_READ) return true;
    if (err == SSL_ERROR_WANT_WRITE) {
      blocked_ = true;
      return true;
    }
    return false;  // close_notify, a reset, or a TLS error
  }
}

// Handlers run after nghttp2 has returned: one may answer at once, which submits frames.
void H2Session::dispatch_ready() {
  std::vector<int32_t> ids;
  ids.swap(ready_);
  for (int32_t id : ids) {
    auto it = streams_.find(id);
    if (it == streams_.end()) continue;
    if (it->second.too_large) {
      Response res;
      res.status = 413;
      res.headers.set("Content-Type", "text/plain");
      res.body.prefix = std::make_shared<const std::string>(util::reason_phrase(413));
      res.body.length = res.body.prefix->size();
      respond(id, it->second.request.method == "HEAD", std::move(res));
      continue;
    }
    Request req = std::move(it->second.request);
    on_request_(id, std::move(req));  // may call respond(), which may close (erase) streams
  }
}

void H2Session::respond(int32_t stream, bool head, Response response) {
  auto it = streams_.find(stream);
  if (broken_ || it == streams_.end() || it->second.answered) return;
  H2Stream& s = it->second;
  s.answered = true;
  std::vector<std::string> names, values;
  names.reserve(response.headers.items.size() + 2);
  values.reserve(response.headers.items.size() + 2);
  names.push_back(":status");
  values.push_back(std::to_string(response.status));
  for (const auto& h : response.headers.items) {
    std::string name = h.name;
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (connection_specific(name)) continue;
    names.push_back(std::move(name));
    values.push_back(h.value);
  }
  names.push_back("content-length");
  values.push_back(std::to_string(response.body.length));
  std::vector<nghttp2_nv> nva;
  for (size_t i = 0; i < names.size(); ++i) nva.push_back(header(names[i], values[i]));

  s.body = std::move(response.body);
  s.sent = 0;
  s.to_send = head ? 0 : std::min(s.body.length, s.body.send_limit);
  nghttp2_data_provider provider{};
  provider.read_callback = H2Callbacks::read_body;
  bool with_body = !head && s.body.length > 0;
  if (nghttp2_submit_response(session_, stream, nva.data(), nva.size(), with_body ? &provider : nullptr) != 0) {
    broken_ = true;
  }
}

bool H2Session::flush() {
  if (broken_) return false;
  blocked_ = false;
  if (!handshaken_) return handshake();
  while (true) {
    if (retry_length_ == 0) {
      // Gather frames up to a batch; nghttp2 hands out one frame (or a DATA piece) per call.
      while (pending_.size() < kOutputBatch) {
        const uint8_t* data = nullptr;
        ssize_t n = nghttp2_session_mem_send(session_, &data);
        if (n < 0) return false;
        if (n == 0) break;
        pending_.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
      }
    }
    if (pending_.empty()) break;
    if (!write_tls()) return false;
    if (blocked_) return true;
  }
  return nghttp2_session_want_read(session_) || nghttp2_session_want_write(session_);
}

bool H2Session::write_tls() {
  size_t length = retry_length_ ? retry_length_ : pending_.size();
  ERR_clear_error();
  int n = SSL_write(ssl_, pending_.data(), static_cast<int>(length));
  if (n > 0) {
    pending_.erase(0, static_cast<size_t>(n));
    retry_length_ = 0;
    return true;
  }
  int err = SSL_get_error(ssl_, n);
  if (err == SSL_ERROR_WANT_WRITE || err == SSL_ERROR_WANT_READ) {
    // OpenSSL requires the same length on the retry; more frames wait until it succeeds.
    retry_length_ = length;
    blocked_ = true;
    return true;
  }
  return false;
}

}  // namespace hfi::testhub::http
