#include "http/socket_events.hpp"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hfi::http {

SocketEvents::SocketEvents() : fd_(epoll_create1(EPOLL_CLOEXEC)) {
  if (fd_ < 0) error_ = std::string("epoll_create1: ") + std::strerror(errno);
}

SocketEvents::~SocketEvents() {
  if (fd_ >= 0) close(fd_);
}

void SocketEvents::watch(int socket, bool readable, bool writable) {
  if (fd_ < 0 || socket < 0) return;
  epoll_event ev{};
  ev.events = (readable ? EPOLLIN : 0u) | (writable ? EPOLLOUT : 0u);
  ev.data.fd = socket;
  auto slot = static_cast<size_t>(socket);
  if (watched_.size() <= slot) watched_.resize(slot + 1, 0);
  // A socket closed without forget() has left the kernel's set, and its number may come back.
  int op = watched_[slot] ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
  if (epoll_ctl(fd_, op, socket, &ev) != 0) {
    if (op == EPOLL_CTL_MOD && errno == ENOENT) epoll_ctl(fd_, EPOLL_CTL_ADD, socket, &ev);
    else if (op == EPOLL_CTL_ADD && errno == EEXIST) epoll_ctl(fd_, EPOLL_CTL_MOD, socket, &ev);
  }
  watched_[slot] = 1;
}

void SocketEvents::forget(int socket) {
  if (fd_ < 0 || socket < 0) return;
  auto slot = static_cast<size_t>(socket);
  if (slot < watched_.size() && watched_[slot]) {
    epoll_ctl(fd_, EPOLL_CTL_DEL, socket, nullptr);  // ENOENT/EBADF: already gone with its socket
    watched_[slot] = 0;
  }
}

int SocketEvents::wait(int timeout_ms, const std::function<void(int, bool, bool)>& ready) {
  if (fd_ < 0) return 0;
  epoll_event events[64];
  int n = epoll_wait(fd_, events, 64, timeout_ms);
  if (n <= 0) return 0;  // EINTR counts as a wake-up with nothing ready
  for (int i = 0; i < n; ++i) {
    uint32_t e = events[i].events;
    bool trouble = (e & (EPOLLERR | EPOLLHUP)) != 0;
    ready(events[i].data.fd, trouble || (e & EPOLLIN), trouble || (e & EPOLLOUT));
  }
  return n;
}

}  // namespace hfi::http
