// Which of a set of sockets are ready, told about only those that are: the readiness half of the
// transport's event loop. libcurl's own loop (curl_multi_perform + curl_multi_poll) visits every
// transfer of the multi handle at each wake-up, so a 163-shard burst, 326 transfers with their
// hundreds of wake-ups, cost time in proportion to their product; driven through
// curl_multi_socket_action with this, a wake-up costs what its ready sockets cost.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace hfi::http {

class SocketEvents {
 public:
  SocketEvents();  // ok() says whether the kernel gave us the watch
  ~SocketEvents();
  SocketEvents(const SocketEvents&) = delete;
  SocketEvents& operator=(const SocketEvents&) = delete;

  bool ok() const { return fd_ >= 0; }
  const std::string& error() const { return error_; }

  // Watch `socket` for reading and/or writing, replacing what was asked before.
  void watch(int socket, bool readable, bool writable);
  // Stop watching `socket` (before it is closed; a closed one drops out by itself).
  void forget(int socket);

  // Waits up to `timeout_ms` (0: just look) and calls `ready` for each socket that can make
  // progress. An error or hang-up counts as readable and writable: the next read or write says
  // what happened. Returns how many sockets were reported.
  int wait(int timeout_ms, const std::function<void(int socket, bool readable, bool writable)>& ready);

 private:
  int fd_ = -1;
  std::string error_;
  std::vector<unsigned char> watched_;  // by socket number: registered with the kernel
};

}  // namespace hfi::http
