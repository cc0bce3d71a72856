// DeferredWork: tasks whose outcome nobody needs right away (writing a cache file), run on threads
// of their own while the caller goes on, and joined by wait(). A cold DeepSeek-V3 run writes an
// 11.6 MB header pack, about 5 ms, that no longer has to come before building the report.
#pragma once

#include <functional>
#include <future>
#include <optional>
#include <string>
#include <vector>

namespace hfi {

class DeferredWork {
 public:
  // A task returns a note for the report when it did not do what it was for.
  using Task = std::function<std::optional<std::string>()>;

  DeferredWork() = default;
  ~DeferredWork();  // waits for whatever still runs
  DeferredWork(const DeferredWork&) = delete;
  DeferredWork& operator=(const DeferredWork&) = delete;

  // Starts `task` on a thread; with no thread to be had, runs it now.
  void run(Task task);
  // Joins every task started so far; the notes of those that failed, in the order they started.
  std::vector<std::string> wait();

 private:
  std::vector<std::future<std::optional<std::string>>> running_;
};

}  // namespace hfi
