// The test hub's HTTP/2-over-TLS listener (tests/hub/h2_session.*, tests/hub/tls_context.*)
// through libcurl, the client hfinspect uses: negotiation, answers now and later, HEAD, refused
// request bodies, a handler that throws, a cut body, an unanswered stream beside answered ones,
// many streams on one connection, and a client that does not offer h2.
#include <curl/curl.h>

#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "hub/event_server.hpp"
#include "hub/tls_context.hpp"

namespace {

namespace fs = std::filesystem;
using hfi::testhub::http::EventServer;
using hfi::testhub::http::Request;
using hfi::testhub::http::Responder;
using hfi::testhub::http::Response;
using hfi::testhub::http::ServerSettings;
using hfi::testhub::http::TlsContext;

Response text(int status, const std::string& body) {
  Response res;
  res.status = status;
  res.headers.set("Content-Type", "text/plain");
  res.body.prefix = std::make_shared<const std::string>(body);
  res.body.length = body.size();
  return res;
}

// A TLS server whose routes are the test's; every request it hands over is recorded.
struct H2Server {
  H2Server() : tls(std::make_shared<const TlsContext>()) {
    ca_file = fs::path(HFINSPECT_TEST_WORK_DIR) / "h2-server-ca.pem";
    fs::create_directories(ca_file.parent_path());
    std::ofstream(ca_file) << tls->certificate_pem();
    ServerSettings settings;
    settings.tls = tls;
    server = std::make_unique<EventServer>(settings, [this](Request&& req, Responder r) { route(std::move(req), r); }, nullptr);
    server->start();
  }
  std::string url(const std::string& path) const { return "https://127.0.0.1:" + std::to_string(server->tls_port()) + path; }

  void route(Request&& req, Responder r) {
    {
      std::lock_guard lock(mutex);
      seen.push_back(req);
    }
    std::string path = req.target.substr(0, req.target.find('?'));
    if (path == "/hello") return r.send(text(200, "hello"));
    if (path == "/later") return r.after(std::chrono::milliseconds(30), [](Responder later) { later.send(text(200, "later")); });
    if (path == "/echo") return r.send(text(200, req.method + " " + req.body + " " + req.get_header_value("Host")));
    if (path == "/throw") throw std::runtime_error("route bug");
    if (path == "/never") return;
    if (path == "/zeros") {  // "abc", then zeros: 3 MB in all
      Response res = text(200, "abc");
      res.body.length = 3u << 20;
      return r.send(std::move(res));
    }
    if (path == "/cut") {
      Response res = text(200, std::string(100000, 'x'));
      res.body.send_limit = 30000;
      return r.send(std::move(res));
    }
    r.send(text(404, "no route"));
  }

  std::shared_ptr<const TlsContext> tls;
  fs::path ca_file;
  std::unique_ptr<EventServer> server;
  std::mutex mutex;
  std::vector<Request> seen;
};

size_t collect(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

struct Fetched {
  CURLcode code = CURLE_OK;
  long status = 0;
  long version = 0;
  std::string body;
};

CURL* make_easy(const H2Server& s, const std::string& path, Fetched& out) {
  CURL* easy = curl_easy_init();
  curl_easy_setopt(easy, CURLOPT_URL, s.url(path).c_str());
  curl_easy_setopt(easy, CURLOPT_CAINFO, s.ca_file.c_str());
  curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &out.body);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, 5000L);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  return easy;
}

void finish(CURL* easy, Fetched& out) {
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &out.status);
  curl_easy_getinfo(easy, CURLINFO_HTTP_VERSION, &out.version);
  curl_easy_cleanup(easy);
}

Fetched fetch(const H2Server& s, const std::string& path, const std::function<void(CURL*)>& tweak = {}) {
  Fetched out;
  CURL* easy = make_easy(s, path, out);
  if (tweak) tweak(easy);
  out.code = curl_easy_perform(easy);
  finish(easy, out);
  return out;
}

}  // namespace

TEST_CASE("HTTP/2 server: answers now and later, HEAD, request bodies, a throwing route", "[testhub][event-server][h2]") {
  H2Server s;
  auto hello = fetch(s, "/hello");
  CHECK(hello.code == CURLE_OK);
  CHECK(hello.version == CURL_HTTP_VERSION_2_0);
  CHECK(hello.status == 200);
  CHECK(hello.body == "hello");

  auto later = fetch(s, "/later");
  CHECK(later.status == 200);
  CHECK(later.body == "later");

  auto head = fetch(s, "/hello", [](CURL* e) { curl_easy_setopt(e, CURLOPT_NOBODY, 1L); });
  CHECK(head.code == CURLE_OK);
  CHECK(head.status == 200);
  CHECK(head.body.empty());

  std::string posted = "name=value";
  auto echo = fetch(s, "/echo?x=1", [&](CURL* e) { curl_easy_setopt(e, CURLOPT_POSTFIELDS, posted.c_str()); });
  CHECK(echo.body == "POST name=value 127.0.0.1:" + std::to_string(s.server->tls_port()));

  std::string too_big(2u << 20, 'a');  // ServerSettings::max_body_bytes is 1 MiB
  auto refused = fetch(s, "/echo", [&](CURL* e) {
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, too_big.c_str());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, static_cast<long>(too_big.size()));
  });
  CHECK(refused.status == 413);

  auto thrown = fetch(s, "/throw");
  CHECK(thrown.status == 500);
  CHECK_THAT(thrown.body, Catch::Contains("route bug"));

  auto zeros = fetch(s, "/zeros");
  REQUIRE(zeros.body.size() == (3u << 20));
  CHECK(zeros.body.substr(0, 3) == "abc");
  CHECK(zeros.body.find_first_not_of('\0', 3) == std::string::npos);

  std::lock_guard lock(s.mutex);
  for (const auto& req : s.seen) {
    CHECK(req.version == "HTTP/2");
    CHECK(req.tls);
  }
}

TEST_CASE("HTTP/2 server: a cut body resets its stream, an unanswered one leaves the others alone", "[testhub][event-server][h2]") {
  H2Server s;
  auto cut = fetch(s, "/cut");
  CHECK(cut.code != CURLE_OK);
  CHECK(cut.body.size() <= 30000);

  // One connection: a stream that is never answered, then many that are.
  CURLM* multi = curl_multi_init();
  curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  std::vector<Fetched> results(41);
  std::vector<CURL*> easies;
  for (size_t i = 0; i < results.size(); ++i) {
    CURL* e = make_easy(s, i == 0 ? "/never" : "/later", results[i]);
    curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    if (i == 0) curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 1500L);
    curl_multi_add_handle(multi, e);
    easies.push_back(e);
  }
  int running = 1;
  while (running) {
    curl_multi_perform(multi, &running);
    curl_multi_poll(multi, nullptr, 0, 100, nullptr);
  }
  int queued = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi, &queued))
    for (size_t i = 0; i < easies.size(); ++i)
      if (msg->easy_handle == easies[i]) results[i].code = msg->data.result;
  long connects = 0;
  for (size_t i = 0; i < easies.size(); ++i) {
    long n = 0;
    curl_easy_getinfo(easies[i], CURLINFO_NUM_CONNECTS, &n);
    connects += n;
    curl_multi_remove_handle(multi, easies[i]);
    finish(easies[i], results[i]);
  }
  curl_multi_cleanup(multi);
  CHECK(results[0].code == CURLE_OPERATION_TIMEDOUT);
  for (size_t i = 1; i < results.size(); ++i) {
    INFO("stream " << i);
    CHECK(results[i].code == CURLE_OK);
    CHECK(results[i].body == "later");
  }
  CHECK(connects == 1);
}

TEST_CASE("HTTP/2 server: a client that does not offer h2 is refused in the handshake", "[testhub][event-server][h2]") {
  H2Server s;
  auto old = fetch(s, "/hello", [](CURL* e) { curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1)); });
  CHECK(old.code != CURLE_OK);
  CHECK(old.status == 0);
  auto untrusted = fetch(s, "/hello", [](CURL* e) { curl_easy_setopt(e, CURLOPT_CAINFO, "/dev/null"); });
  CHECK(untrusted.code != CURLE_OK);
  std::lock_guard lock(s.mutex);
  CHECK(s.seen.empty());
}
