#include "core/intern.hpp"

#include <mutex>
#include <string>
#include <unordered_set>

namespace hfi {

std::string_view intern(std::string_view text) {
  // Decoders ask for the same format module after module: one comparison spares the lock.
  thread_local std::string_view last;
  if (!last.empty() && last == text) return last;
  static std::mutex lock;
  // Never destroyed: views may be read by static destructors and at exit. Nodes do not move.
  static auto* pool = new std::unordered_set<std::string>();
  std::lock_guard<std::mutex> held(lock);
  last = *pool->emplace(text).first;
  return last;
}

}  // namespace hfi
