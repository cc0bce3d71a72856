// SocketEvents: the transport's readiness watch, on a socket pair (no network).
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <utility>
#include <vector>

#include "http/socket_events.hpp"

using hfi::http::SocketEvents;

namespace {

struct Pair {
  int a = -1, b = -1;
  Pair() {
    int fds[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    a = fds[0];
    b = fds[1];
  }
  ~Pair() {
    if (a >= 0) close(a);
    if (b >= 0) close(b);
  }
};

// What one look (timeout 0) reports: (socket, readable, writable) per ready socket.
std::vector<std::tuple<int, bool, bool>> look(SocketEvents& events) {
  std::vector<std::tuple<int, bool, bool>> seen;
  events.wait(0, [&](int s, bool r, bool w) { seen.emplace_back(s, r, w); });
  return seen;
}

}  // namespace

TEST_CASE("socket events: only watched sockets, only in the directions asked") {
  SocketEvents events;
  REQUIRE(events.ok());
  Pair p;
  CHECK(look(events).empty());  // nothing watched yet

  events.watch(p.a, true, false);
  CHECK(look(events).empty());  // nothing to read
  REQUIRE(write(p.b, "x", 1) == 1);
  CHECK(look(events) == std::vector<std::tuple<int, bool, bool>>{{p.a, true, false}});

  // Asking again replaces the directions: an idle socket pair can always be written.
  events.watch(p.a, false, true);
  CHECK(look(events) == std::vector<std::tuple<int, bool, bool>>{{p.a, false, true}});

  events.forget(p.a);
  CHECK(look(events).empty());
  events.forget(p.a);  // twice is harmless
}

TEST_CASE("socket events: a hang-up is reported both ways, so the next read or write tells") {
  SocketEvents events;
  REQUIRE(events.ok());
  Pair p;
  events.watch(p.a, false, false);  // asked for neither: a hang-up is reported all the same
  close(p.b);
  p.b = -1;
  CHECK(look(events) == std::vector<std::tuple<int, bool, bool>>{{p.a, true, true}});
}

TEST_CASE("socket events: a socket closed without forget() leaves its number free for the next one") {
  SocketEvents events;
  REQUIRE(events.ok());
  int reused = -1;
  {
    Pair first;
    events.watch(first.a, true, false);
    reused = first.a;
  }  // both closed; the kernel drops the closed socket from the watch by itself
  Pair second;  // takes the lowest free numbers: the same as before
  REQUIRE(second.a == reused);
  events.watch(second.a, true, false);  // recorded as watched, gone from the kernel: added again
  REQUIRE(write(second.b, "y", 1) == 1);
  CHECK(look(events) == std::vector<std::tuple<int, bool, bool>>{{second.a, true, false}});
}
