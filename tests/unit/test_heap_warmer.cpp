// HeapWarmer: the helper touches what was asked and stops when released; and, with the heap
// settings the CLI uses, this thread's next allocations land on the warmed pages and fault none.
#include <sys/resource.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "core/heap_warmer.hpp"

namespace {

// Waits (up to 10 s) for the helper to report `bytes` touched.
bool touched_in_time(const hfi::HeapWarmer& w, size_t bytes) {
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (w.touched() < bytes && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return w.touched() >= bytes;
}

}  // namespace

TEST_CASE("heap warmer: touches what is asked, within what was reserved", "[heap]") {
  constexpr size_t kMB = 1u << 20;
  SECTION("a warm before any reservation does nothing") {
    hfi::HeapWarmer w;
    w.warm(4 * kMB);
    w.release();
    CHECK(w.touched() == 0);
  }
  SECTION("the touch stops at the reservation") {
    hfi::HeapWarmer w;
    w.reserve(2 * kMB);
    CHECK(w.reserved() == 2 * kMB);
    w.warm(8 * kMB);
    CHECK(touched_in_time(w, 2 * kMB));
    w.release();
    CHECK(w.touched() == 2 * kMB);
    CHECK(w.reserved() == 0);
  }
  SECTION("only the first warm counts, less than the reservation is fine, and a released warmer may be used again") {
    hfi::HeapWarmer w;
    w.reserve(4 * kMB);
    w.warm(1 * kMB);
    w.warm(4 * kMB);
    CHECK(touched_in_time(w, 1 * kMB));
    w.release();
    CHECK(w.touched() == 1 * kMB);
    w.reserve(2 * kMB);
    w.warm(2 * kMB);
    CHECK(touched_in_time(w, 2 * kMB));
    w.release();
    CHECK(w.touched() == 2 * kMB);
  }
  SECTION("release during the touch stops the helper; releasing twice is harmless") {
    hfi::HeapWarmer w;
    w.reserve(24 * kMB);
    w.warm(24 * kMB);
    w.release();  // under ASan a write after the free would be reported here
    CHECK(w.reserved() == 0);
    w.release();
    CHECK(w.reserved() == 0);
  }
}

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
namespace {

long faults_of_this_thread() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

}  // namespace

TEST_CASE("heap warmer: this thread's next allocations fault no pages (glibc, the CLI's heap settings)", "[heap]") {
  // What app/main.cpp's keep_freed_memory() sets: blocks under 32 MB come from the heap and stay.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  constexpr size_t kMB = 1u << 20, kUsed = 6 * kMB, kPages = kUsed / 4096;
  auto allocate_and_fill = [](size_t bytes, std::vector<char*>& held) {
    long before = faults_of_this_thread();
    char* p = static_cast<char*>(std::malloc(bytes));
    std::memset(p, 1, bytes);
    held.push_back(p);
    return faults_of_this_thread() - before;
  };
  long control = 0, warmed = 0;
  std::thread([&] {
    // This thread may inherit the heap of one that ended, with pages already touched: those are
    // used up first (and held), until new allocations fault as fresh memory does.
    std::vector<char*> held;
    for (size_t taken = 0, fresh_in_a_row = 0; fresh_in_a_row < 2 && taken < (2048u << 20); taken += kMB)
      fresh_in_a_row = allocate_and_fill(kMB, held) > 200 ? fresh_in_a_row + 1 : 0;
    control = allocate_and_fill(kUsed, held);  // fresh: every page faults
    {
      hfi::HeapWarmer w;
      w.reserve(8 * kMB);
      w.warm(8 * kMB);
      REQUIRE(touched_in_time(w, 8 * kMB));
    }  // released: the block goes back to this thread's heap
    warmed = allocate_and_fill(kUsed, held);
    for (char* p : held) std::free(p);
  }).join();
  CHECK(control >= static_cast<long>(kPages) * 9 / 10);
  CHECK(warmed < 64);
}
#endif
