#include "core/exit_handoff.hpp"

#include <cstdlib>

#ifdef __linux__
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace hfi {

#ifdef __linux__
namespace {

// The heir runs on this stack, in the exiting process's memory; it needs a few hundred bytes.
alignas(64) char heir_stack[16 << 10];
pid_t exiting_pid = 0;

// Only raw system calls: the heir shares the exiting thread's thread-local storage and heap, so
// it must not touch either (errno included: syscall() writes it only on failure, when the value no
// longer matters). No sanitizer instrumentation either: the sanitizers do not know this stack.
__attribute__((no_sanitize("address", "undefined"))) int heir_main(void*) {
  syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  // The parent may have gone between clone() and prctl(): then no signal would come.
  // ppoll with nothing to watch and no timeout sleeps until a signal (pause() is not a system
  // call on every architecture).
  if (syscall(SYS_getppid) == exiting_pid)
    for (;;) syscall(SYS_ppoll, nullptr, 0, nullptr, nullptr, 0);
  syscall(SYS_exit, 0);
  return 0;
}

}  // namespace

pid_t start_teardown_heir() {
  // Descriptors first: a pipe the caller reads must reach end-of-file when this process exits,
  // not when the heir does. Without close_range (Linux 5.9+) there is no cheap way to be sure.
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 0u, ~0u, 0u) != 0) return -1;
#else
  return -1;
#endif
  exiting_pid = getpid();
  // CLONE_FILES: the heir shares the (now empty) descriptor table instead of copying it.
  // No exit signal: the exiting process will not wait for it; init reaps it.
  int pid = clone(heir_main, heir_stack + sizeof heir_stack, CLONE_VM | CLONE_FS | CLONE_FILES, nullptr);
  return pid > 0 ? pid : -1;
}
#else
pid_t start_teardown_heir() { return -1; }
#endif

void exit_leaving_teardown(int code) {
  start_teardown_heir();
  std::_Exit(code);
}

}  // namespace hfi
