#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <csignal>

// The tests talk to servers on loopback sockets, and a peer may hang up before a write: that write
// must fail with EPIPE, not kill the test process. Ignoring SIGPIPE before the first test makes this
// hold whichever test runs first (the test hub also sets it, but only once one is started).
int main(int argc, char* argv[]) {
  std::signal(SIGPIPE, SIG_IGN);
  return Catch::Session().run(argc, argv);
}
