// fresh_memory: what the first touch of fresh memory costs on this machine right now, which the
// remote bench prints beside its table. Each page a process touches for the first time costs a
// fault in which the kernel clears it. On a VM whose host takes freed memory back, that cost swings
// widely from minute to minute (here the same 96 MB took 8 ms in one run and 210 ms in another),
// and a cold hfinspect run on DeepSeek-V3 touches about 86 MB (22 MB of it ahead, while it waits
// for the Hub's redirects): a slow spell shows up in every row, and this says whether one was on.
//
//   fresh_memory [MB] [RUNS]     (defaults: 64 MB, 5 runs)
//
// Prints ms per MB for 2 MB pages (what glibc.malloc.hugetlb=1 gives a heap; hfinspect stopped
// asking for it, see app/main.cpp) and for 4 KB pages, on which hfinspect's heaps now are.
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// One fresh mapping of `mb` MB, advised as `advice`, touched once per 4 KB; ms, or -1.
double first_touch_ms(size_t mb, int advice) {
  constexpr size_t kHuge = 2u << 20;
  const size_t bytes = mb << 20;
  void* raw = mmap(nullptr, bytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return -1;
  // Aligned to 2 MB, as a huge page must be.
  auto* p = reinterpret_cast<volatile char*>((reinterpret_cast<uintptr_t>(raw) + kHuge - 1) & ~(kHuge - 1));
  madvise(const_cast<char*>(p), bytes, advice);
  auto start = std::chrono::steady_clock::now();
  for (size_t at = 0; at < bytes; at += 4096) p[at] = 1;
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  munmap(raw, bytes + kHuge);
  return ms;
}

// The first mapping tends to get pages the host took back; the ones after it reuse what the one
// before freed, as back-to-back runs of a program do. Both are worth seeing.
void report(const char* what, size_t mb, int runs, int advice) {
  std::vector<double> per_mb;
  for (int i = 0; i < runs; ++i) {
    double ms = first_touch_ms(mb, advice);
    if (ms < 0) {
      std::printf("%s mmap failed\n", what);
      return;
    }
    per_mb.push_back(ms / static_cast<double>(mb));
  }
  const double first = per_mb.front();
  std::vector<double> rest(per_mb.begin() + 1, per_mb.end());
  std::sort(rest.begin(), rest.end());
  if (rest.empty()) {
    std::printf("%s %.2f ms per MB (one run of %zu MB)\n", what, first, mb);
    return;
  }
  std::printf("%s %.2f ms per MB the first time, then %.2f (median of %zu more; slowest %.2f), %zu MB each\n", what, first,
              rest[rest.size() / 2], rest.size(), rest.back(), mb);
}

}  // namespace

int main(int argc, char** argv) {
  size_t mb = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 64;
  int runs = argc > 2 ? std::atoi(argv[2]) : 5;
  if (mb == 0 || runs <= 0) {
    std::fprintf(stderr, "usage: fresh_memory [MB] [RUNS]\n");
    return 2;
  }
  report("first touch, 2 MB pages:", mb, runs, MADV_HUGEPAGE);
  report("first touch, 4 KB pages:", mb, runs, MADV_NOHUGEPAGE);
  return 0;
}
