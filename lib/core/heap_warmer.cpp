#include "core/heap_warmer.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <system_error>

namespace hfi {

void HeapWarmer::reserve(size_t most) {
  if (block_ || most == 0) return;
  stop_ = false;  // a warmer released before may be used again
  warming_ = false;
  touched_ = 0;
  block_ = static_cast<char*>(std::malloc(most));  // address space only, until touched
  reserved_ = block_ ? most : 0;
}

void HeapWarmer::warm(size_t bytes) {
  if (!block_ || warming_) return;
  warming_ = true;
  const size_t want = std::min(bytes, reserved_);
  if (want == 0) return;
  try {
    toucher_ = std::thread([this, want] {
      // Idle priority: the touching must never delay the requests or the parsing it waits beside.
      sched_param none{};
      pthread_setschedparam(pthread_self(), SCHED_IDLE, &none);
      constexpr size_t kPage = 4096, kBetweenChecks = 64 * kPage;
      for (size_t at = 0; at < want && !stop_.load(std::memory_order_relaxed); at += kBetweenChecks) {
        const size_t end = std::min(want, at + kBetweenChecks);
        for (size_t page = at; page < end; page += kPage) block_[page] = 0;
        touched_.store(end, std::memory_order_relaxed);
      }
    });
  } catch (const std::system_error&) {  // no thread to be had: the memory is faulted in when used
  }
}

void HeapWarmer::release() {
  stop_.store(true, std::memory_order_relaxed);
  // Waiting frees this thread's core, where an idle-priority helper runs at once.
  if (toucher_.joinable()) toucher_.join();
  std::free(block_);
  block_ = nullptr;
  reserved_ = 0;
}

}  // namespace hfi
