#include "core/deferred_work.hpp"

#include <memory>
#include <system_error>

namespace hfi {

DeferredWork::~DeferredWork() { wait(); }

void DeferredWork::run(Task task) {
  // Shared, so that a failed std::async (which may already have moved its callable) leaves the
  // task in our hands to run here.
  auto shared = std::make_shared<Task>(std::move(task));
  try {
    running_.push_back(std::async(std::launch::async, [shared] { return (*shared)(); }));
  } catch (const std::system_error&) {
    std::promise<std::optional<std::string>> done;
    done.set_value((*shared)());
    running_.push_back(done.get_future());
  }
}

std::vector<std::string> DeferredWork::wait() {
  std::vector<std::string> notes;
  for (auto& f : running_)
    if (auto note = f.get()) notes.push_back(std::move(*note));
  running_.clear();
  return notes;
}

}  // namespace hfi
