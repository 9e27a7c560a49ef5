// runner/channel.cpp: the SOCK_SEQPACKET transport (recvmsg with SCM_RIGHTS, send).
#include "runner/channel.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>
#include <system_error>

namespace hone::runner {
namespace {

constexpr int kMaxFds = 253;  // SCM_MAX_FD
constexpr int kSendBuffer = 16 << 20;

[[noreturn]] void fail(const char* what) { throw std::system_error(errno, std::generic_category(), what); }

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

Channel Channel::adopt_stdio() {
  int type = 0;
  socklen_t length = sizeof type;
  if (::getsockopt(0, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_SEQPACKET)
    throw std::runtime_error("fd 0 is not an AF_UNIX SOCK_SEQPACKET socket: hone-runner is started by the judge "
                             "with its end of a socket pair as fd 0 and fd 1 (protocol/WORKER.md, the candidate protocol)");
  const int fd = ::fcntl(0, F_DUPFD_CLOEXEC, 3);
  if (fd < 0) fail("fcntl(F_DUPFD_CLOEXEC)");
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null < 0) fail("open(/dev/null)");
  if (::dup2(null, 0) < 0 || ::dup2(2, 1) < 0) fail("dup2");
  ::close(null);
  return Channel(fd);
}

Channel::Channel(int fd) : socket_(fd), buffer_(new char[kMaxMessage + 1]) {
  // Best effort: the kernel caps it at 2 x net.core.wmem_max; a reply that still does not fit
  // fails with EMSGSIZE.
  const int bytes = kSendBuffer;
  ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
}

std::optional<Datagram> Channel::receive() {
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
  iovec io{buffer_.get(), kMaxMessage + 1};
  msghdr msg{};
  msg.msg_iov = &io;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = ::recvmsg(socket_.get(), &msg, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno == ECONNRESET) return std::nullopt;
    fail("recvmsg");
  }
  Datagram d;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    const auto* fds = reinterpret_cast<const int*>(CMSG_DATA(c));
    for (std::size_t i = 0; i < count; ++i) d.fds.emplace_back(fds[i]);
  }
  if (n == 0 && d.fds.empty()) return std::nullopt;
  d.truncated = (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 || static_cast<std::size_t>(n) > kMaxMessage;
  d.text.assign(buffer_.get(), std::min(static_cast<std::size_t>(n), kMaxMessage));
  return d;
}

void Channel::send(const std::string& text) {
  ssize_t n;
  do {
    n = ::send(socket_.get(), text.data(), text.size(), MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0) fail("send");
}

}  // namespace hone::runner
