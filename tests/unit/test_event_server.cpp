// Wire-level checks of the test hub's HTTP server (tests/hub/event_server.*) over raw sockets:
// framing, keep-alive and pipelining, the requests it refuses, deferred and never-sent answers,
// cut and endless bodies, and a burst of parallel connections.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "hub/event_server.hpp"

namespace {

using hfi::testhub::http::Body;
using hfi::testhub::http::EventServer;
using hfi::testhub::http::Request;
using hfi::testhub::http::Responder;
using hfi::testhub::http::Response;
using hfi::testhub::http::ServerSettings;

// A blocking client socket with a 5 s limit on every wait, so a broken server fails the test
// instead of hanging it.
class RawClient {
 public:
  explicit RawClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~RawClient() { ::close(fd_); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return connected_; }
  void shutdown_sending() const { ::shutdown(fd_, SHUT_WR); }
  void send(const std::string& bytes) const {
    size_t off = 0;
    while (off < bytes.size()) {
      ssize_t n = ::send(fd_, bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return;
      off += static_cast<size_t>(n);
    }
  }
  // Reads until `want` bytes are buffered, the peer closes, or 5 s pass. Returns false on timeout.
  bool read_until(size_t want) {
    while (in_.size() < want && !closed_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 5000) <= 0) return false;
      char buf[65536];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        closed_ = true;
        break;
      }
      in_.append(buf, static_cast<size_t>(n));
    }
    return true;
  }
  bool read_to_close() { return read_until(SIZE_MAX) && closed_; }
  // Reads one response: head, then Content-Length bytes of body (none when `head_only`).
  bool read_response(std::string& head, std::string& body, bool head_only = false) {
    size_t end;
    while ((end = in_.find("\r\n\r\n")) == std::string::npos) {
      size_t before = in_.size();
      if (!read_until(before + 1) || in_.size() == before) return false;
    }
    head = in_.substr(0, end + 4);
    size_t length = 0;
    if (auto p = head.find("Content-Length: "); p != std::string::npos) length = std::stoul(head.substr(p + 16));
    if (head_only) length = 0;
    if (!read_until(end + 4 + length) || in_.size() < end + 4 + length) return false;
    body = in_.substr(end + 4, length);
    in_.erase(0, end + 4 + length);
    return true;
  }
  const std::string& buffered() const { return in_; }
  bool closed() const { return closed_; }

 private:
  int fd_ = -1;
  bool connected_ = false;
  bool closed_ = false;
  std::string in_;
};

Response text(int status, std::string body) {
  Response r;
  r.status = status;
  r.headers.set("Content-Type", "text/plain");
  r.body.prefix = std::make_shared<const std::string>(std::move(body));
  r.body.length = r.body.prefix->size();
  return r;
}

// Echoes "<method> <target> <body>"; "/late" answers after 30 ms; "/never" is never answered.
struct EchoServer {
  std::mutex mutex;
  std::vector<int> rejected;
  EventServer server;
  int port;
  explicit EchoServer(ServerSettings settings = {})
      : server(
            settings,
            [](Request&& req, Responder r) {
              if (req.target == "/never") return;
              if (req.target == "/throw") throw std::runtime_error("handler bug");
              std::string reply = req.method + " " + req.target + " " + req.body;
              if (req.target == "/late") {
                r.after(std::chrono::milliseconds(30), [reply](Responder later) { later.send(text(200, reply)); });
                return;
              }
              r.send(text(200, reply));
            },
            [this](const Request&, int status) {
              std::lock_guard lock(mutex);
              rejected.push_back(status);
            }),
        port(server.start()) {}
};

}  // namespace

TEST_CASE("event server: keep-alive, pipelining in order, HEAD, Connection: close", "[testhub][event-server]") {
  EchoServer echo;
  RawClient c(echo.port);
  REQUIRE(c.connected());
  // Three requests in one write: the deferred one must still come back first.
  c.send("GET /late HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nPOST /c HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello");
  std::string head, body;
  REQUIRE(c.read_response(head, body));
  CHECK(head.starts_with("HTTP/1.1 200 OK\r\n"));
  CHECK(body == "GET /late ");
  REQUIRE(c.read_response(head, body));
  CHECK(body == "GET /b ");
  REQUIRE(c.read_response(head, body));
  CHECK(body == "POST /c hello");
  CHECK(head.find("Connection: close") == std::string::npos);

  c.send("HEAD /h HTTP/1.1\r\n\r\n");
  REQUIRE(c.read_response(head, body, true));
  CHECK(head.find("Content-Length: 8\r\n") != std::string::npos);  // the length GET would have had: "HEAD /h "
  c.send("GET /last HTTP/1.1\r\nConnection: close\r\n\r\n");
  REQUIRE(c.read_response(head, body));
  CHECK(body == "GET /last ");  // proves the HEAD answer carried no body bytes
  CHECK(head.find("Connection: close\r\n") != std::string::npos);
  REQUIRE(c.read_to_close());
  CHECK(c.buffered().empty());

  RawClient old(echo.port);
  old.send("GET /ten HTTP/1.0\r\n\r\n");
  REQUIRE(old.read_response(head, body));
  CHECK(body == "GET /ten ");
  CHECK(old.read_to_close());

  RawClient half(echo.port);  // sends its request, then shuts down its sending side
  half.send("GET /late HTTP/1.1\r\n\r\n");
  half.shutdown_sending();
  REQUIRE(half.read_to_close());
  CHECK(half.buffered().find("\r\n\r\nGET /late ") != std::string::npos);

  RawClient bug(echo.port);  // a handler that throws: a 500, and the server carries on
  bug.send("GET /throw HTTP/1.1\r\n\r\nGET /after HTTP/1.1\r\n\r\n");
  REQUIRE(bug.read_response(head, body));
  CHECK(head.starts_with("HTTP/1.1 500 "));
  CHECK(body == "testhub internal error: handler bug");
  REQUIRE(bug.read_response(head, body));
  CHECK(body == "GET /after ");
}

TEST_CASE("event server: malformed, oversized and chunked requests are refused and reported", "[testhub][event-server]") {
  ServerSettings settings;
  settings.max_head_bytes = 1024;
  settings.max_body_bytes = 64;
  EchoServer echo(settings);
  struct Case {
    std::string request;
    std::string status_line;
  };
  std::vector<Case> cases = {
      {"NONSENSE\r\n\r\n", "HTTP/1.1 400 "},
      {"GET /x HTTP/2.0\r\n\r\n", "HTTP/1.1 400 "},
      {"GET x HTTP/1.1\r\n\r\n", "HTTP/1.1 400 "},
      {"GET /x HTTP/1.1\r\nNoColon\r\n\r\n", "HTTP/1.1 400 "},
      {"POST /x HTTP/1.1\r\nContent-Length: 12abc\r\n\r\n", "HTTP/1.1 400 "},
      {"GET /x HTTP/1.1\r\nX-Big: " + std::string(2000, 'a') + "\r\n\r\n", "HTTP/1.1 431 "},
      {"GET /x HTTP/1.1\r\nX-Big: " + std::string(2000, 'a'), "HTTP/1.1 431 "},  // no end of head in sight
      {"POST /x HTTP/1.1\r\nContent-Length: 65\r\n\r\n", "HTTP/1.1 413 "},
      {"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", "HTTP/1.1 501 "},
  };
  for (const auto& t : cases) {
    INFO(t.request.substr(0, 60));
    RawClient c(echo.port);
    c.send(t.request);
    REQUIRE(c.read_to_close());
    CHECK(c.buffered().starts_with(t.status_line));
    CHECK(c.buffered().find("Connection: close\r\n") != std::string::npos);
  }
  std::lock_guard lock(echo.mutex);
  CHECK(echo.rejected == std::vector<int>{400, 400, 400, 400, 400, 431, 431, 413, 501});
}

TEST_CASE("event server: Expect: 100-continue gets its interim answer", "[testhub][event-server]") {
  EchoServer echo;
  RawClient c(echo.port);
  c.send("POST /e HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
  std::string interim = "HTTP/1.1 100 Continue\r\n\r\n";
  REQUIRE(c.read_until(interim.size()));
  REQUIRE(c.buffered().starts_with(interim));
  c.send("abc");
  REQUIRE(c.read_until(interim.size() + 20));
  CHECK(c.buffered().find("POST /e abc") != std::string::npos);
}

TEST_CASE("event server: bodies cut short, endless bodies and unanswered requests", "[testhub][event-server]") {
  auto counter = std::make_shared<std::atomic<uint64_t>>(0);
  auto prefix = std::make_shared<const std::string>("PREFIX");
  EventServer server(
      {},
      [&](Request&& req, Responder r) {
        Response res;
        res.body.prefix = prefix;
        res.body.counter = counter;
        if (req.target == "/cut") {
          res.body.length = 100000;
          res.body.send_limit = 50000;
        } else if (req.target == "/endless") {
          res.body.length = uint64_t{1} << 40;
        } else if (req.target == "/window") {
          res.body.first = 3;
          res.body.length = 7;
        } else {
          return;  // never answered
        }
        r.send(std::move(res));
      },
      nullptr);
  int port = server.start();

  SECTION("a window of prefix then zeros") {
    RawClient c(port);
    c.send("GET /window HTTP/1.1\r\n\r\n");
    std::string head, body;
    REQUIRE(c.read_response(head, body));
    CHECK(body == std::string("FIX\0\0\0\0", 7));
    CHECK(*counter == 7);
  }
  SECTION("send_limit: half the announced body, then the connection ends") {
    RawClient c(port);
    c.send("GET /cut HTTP/1.1\r\n\r\n");
    REQUIRE(c.read_to_close());
    const std::string& got = c.buffered();
    size_t end = got.find("\r\n\r\n");
    REQUIRE(end != std::string::npos);
    CHECK(got.substr(0, end).find("Content-Length: 100000") != std::string::npos);
    CHECK(got.size() - end - 4 == 50000);
    CHECK(*counter == 50000);
  }
  SECTION("a 2^40-byte body costs what the client reads; the server stays responsive") {
    {
      RawClient c(port);
      c.send("GET /endless HTTP/1.1\r\n\r\n");
      REQUIRE(c.read_until(1 << 20));
    }  // the client hangs up after 1 MiB
    RawClient next(port);
    next.send("GET /window HTTP/1.1\r\n\r\n");
    std::string head, body;
    REQUIRE(next.read_response(head, body));
    CHECK(body.size() == 7);
    CHECK(*counter >= (1u << 20));
    CHECK(*counter < (uint64_t{1} << 32));  // socket buffers, not the declared size
  }
  SECTION("an unanswered request holds its connection until stop(), which returns") {
    RawClient c(port);
    c.send("GET /hang HTTP/1.1\r\n\r\n");
    pollfd none{};
    ::poll(&none, 0, 50);
    server.stop();
    REQUIRE(c.read_to_close());
    CHECK(c.buffered().empty());
  }
}

TEST_CASE("event server: 300 parallel connections, each answered after a timer", "[testhub][event-server]") {
  EchoServer echo;
  constexpr int kClients = 300;
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(std::make_unique<RawClient>(echo.port));
    REQUIRE(clients.back()->connected());
    clients.back()->send("GET /late HTTP/1.1\r\nX-N: " + std::to_string(i) + "\r\n\r\n");
  }
  int answered = 0;
  for (auto& c : clients) {
    std::string head, body;
    if (c->read_response(head, body) && body == "GET /late ") ++answered;
  }
  CHECK(answered == kClients);
}
