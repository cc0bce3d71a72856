// HeapWarmer: faults in, while the process waits on the network, memory that one thread will
// allocate soon after.
//
// The first touch of a page costs a fault in which the kernel clears it: about 0.45 ms per MB on
// the 2-core VM the benchmarks run on (bench/fresh_memory.cpp). After the last shard header of a
// cold DeepSeek-V3 run arrives, classifying and decoding its 92k tensors took about 20 MB of
// fresh memory, while in the 100 ms before, both cores had mostly sat waiting for answers.
// glibc gives each thread a heap (arena) of its own, so the warmer takes a block from the
// reserving thread's heap, has a helper thread at idle priority touch it during the wait, and on
// release hands it back to that heap, whose next allocations then find their pages present.
// (Touching memory on a thread of its own, as an earlier attempt did, warms that thread's heap,
// which the decode never allocates from.)
//
// This pays only where freed memory stays in the heap: blocks under the mmap threshold, and no
// trimming (the CLI's keep_freed_memory() sets both). Elsewhere it costs idle CPU time, no more.
#pragma once

#include <atomic>
#include <cstddef>
#include <thread>

namespace hfi {

class HeapWarmer {
 public:
  HeapWarmer() = default;
  ~HeapWarmer() { release(); }
  HeapWarmer(const HeapWarmer&) = delete;
  HeapWarmer& operator=(const HeapWarmer&) = delete;

  // On the thread whose heap is to be warmed: takes `most` bytes of it. Nothing is touched yet.
  // Does nothing while a block is held.
  void reserve(size_t most);
  // Touches the first min(bytes, reserved) bytes on a helper thread at idle priority. The first
  // call counts; calls must be ordered with reserve() and release() (one thread, or a join).
  void warm(size_t bytes);
  // Stops the helper, waits for it, and gives the block back to the reserving thread's heap.
  void release();

  size_t reserved() const { return reserved_; }
  // Bytes touched so far (read after release() for the final figure).
  size_t touched() const { return touched_.load(std::memory_order_relaxed); }

 private:
  char* block_ = nullptr;
  size_t reserved_ = 0;
  bool warming_ = false;
  std::atomic<bool> stop_{false};
  std::atomic<size_t> touched_{0};
  std::thread toucher_;
};

}  // namespace hfi
