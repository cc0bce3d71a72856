// Ending the process without waiting for the kernel to take its memory back.
//
// When a process exits, the kernel frees every page it touched before the exit is complete, and
// whoever waits for it (a shell, a script, CI) waits for that too: about 0.09 ms per MB on the
// 2-core VM the benchmarks run on, 7-8 ms of a cold DeepSeek-V3 inspection that holds 85 MB at
// the end. mold hides its own teardown the same way: the report is complete, so the memory can be
// returned after the caller has its answer.
//
// A helper process that shares the address space (clone with CLONE_VM) is started just before the
// exit. The address space is freed when its last user leaves, so the exiting process leaves at
// once and the helper, killed by the exit (its parent-death signal), frees the pages. Peak memory
// as wait4() and /usr/bin/time report it is unchanged: the kernel records the address space's
// high-water mark when the process exits. The teardown's CPU time is the helper's.
#pragma once

#include <sys/types.h>

namespace hfi {

// Closes every descriptor (the output must already be flushed), so that nothing the caller reads
// from or waits on stays open in the helper; then starts the helper. Returns its pid, or -1 when
// it could not be started, in which case the process tears itself down as usual when it exits.
// Call once, just before _exit/_Exit, on a process that will print nothing more.
pid_t start_teardown_heir();

// Flushes nothing: the caller flushes. Starts the heir and ends the process with `code` now.
[[noreturn]] void exit_leaving_teardown(int code);

}  // namespace hfi
