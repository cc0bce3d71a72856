// start_teardown_heir(): a process that starts the heir and exits keeps its exit code and its peak
// memory, holds no descriptor past that point, and the heir shares its memory and goes with it.
#include <fcntl.h>
#include <linux/kcmp.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "core/exit_handoff.hpp"

namespace {

constexpr size_t kHeld = 96u << 20;  // what the exiting process touches

// "Field:\tvalue ..." from /proc/<pid>/status, if the process is there.
std::optional<std::string> status_field(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(field + ":")) return line.substr(field.size() + 1);
  return std::nullopt;
}

bool wait_until(const auto& done) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return done();
}

// The process whose parent is `parent`, if exactly one is.
std::optional<pid_t> only_child_of(pid_t parent) {
  std::optional<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    pid_t pid = std::stoi(name);
    auto ppid = status_field(pid, "PPid");
    if (!ppid || std::stoi(*ppid) != parent) continue;
    if (found) return std::nullopt;
    found = pid;
  }
  return found;
}

// Gone, or a zombie waiting for init: either way its memory is released.
bool ended(pid_t pid) {
  auto state = status_field(pid, "State");
  return !state || state->find('Z') != std::string::npos;
}

}  // namespace

TEST_CASE("exit handoff: the exit keeps its code and peak memory, drops every descriptor, and the heir goes with it", "[exit]") {
  int held[2];  // the child inherits the write end, as a caller's pipe would be inherited
  REQUIRE(pipe(held) == 0);
  sigset_t go;
  sigemptyset(&go);
  sigaddset(&go, SIGUSR1);
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Only async-signal-safe work and system calls from here on: this is a fork of a test runner.
    sigprocmask(SIG_BLOCK, &go, nullptr);
    close(held[0]);
    void* block = mmap(nullptr, kHeld, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) _exit(90);
    std::memset(block, 1, kHeld);
    if (hfi::start_teardown_heir() <= 0) _exit(91);
    int sig = 0;
    sigwait(&go, &sig);  // the test looks at the heir first
    _exit(7);
  }
  close(held[1]);
  // A failed REQUIRE must not leave the child (or a heir still holding its descriptors) behind.
  struct Reaper {
    pid_t child, *heir;
    bool reaped = false;
    ~Reaper() {
      if (*heir > 0) kill(*heir, SIGKILL);
      if (!reaped) {
        kill(child, SIGKILL);
        waitpid(child, nullptr, 0);
      }
    }
  };
  pid_t heir = 0;
  Reaper reaper{child, &heir};
  REQUIRE(wait_until([&] {
    auto h = only_child_of(child);
    if (h) heir = *h;
    return h.has_value();
  }));
  INFO("child " << child << ", heir " << heir);

  // The descriptors were closed before the heir started: the pipe is at its end already.
  pollfd p{held[0], POLLIN, 0};
  REQUIRE(wait_until([&] { return poll(&p, 1, 0) == 1; }));
  char byte;
  CHECK(read(held[0], &byte, 1) == 0);

  // The heir holds the child's memory, not a copy: the same address space (kcmp where the kernel
  // has it), so the same resident size.
  long same = syscall(SYS_kcmp, child, heir, KCMP_VM, 0, 0);
  if (same != -1) CHECK(same == 0);
  auto rss = status_field(heir, "VmRSS");
  REQUIRE(rss);
  CHECK(std::stoull(*rss) * 1024 >= kHeld);

  REQUIRE(kill(child, SIGUSR1) == 0);
  int status = 0;
  rusage usage{};
  REQUIRE(wait4(child, &status, 0, &usage) == child);
  reaper.reaped = true;
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 7);
  // ru_maxrss is in KB: the high-water mark is the exiting process's, though the heir frees it.
  CHECK(static_cast<uint64_t>(usage.ru_maxrss) * 1024 >= kHeld);
  // The exit kills the heir (its parent-death signal): it does not linger.
  CHECK(wait_until([&] { return ended(heir); }));
  if (ended(heir)) heir = 0;  // nothing for the reaper to kill (the pid may be reused)
  close(held[0]);
}
