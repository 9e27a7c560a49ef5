// runner/channel.h: hone-runner's end of the candidate protocol's transport: one AF_UNIX
// SOCK_SEQPACKET socket, one UTF-8 JSON object per datagram (at most 8 MiB), file descriptors as
// SCM_RIGHTS on the datagram that uses them. Used from the runner's main thread only.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hone::runner {

// An owned file descriptor, closed when it goes out of scope.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

struct Datagram {
  std::string text;
  std::vector<UniqueFd> fds;  // in the order the message lists them
  bool truncated = false;     // longer than kMaxMessage, or more descriptors than fit: a bad request
};

class Channel {
 public:
  static constexpr std::size_t kMaxMessage = std::size_t{8} << 20;

  // The socket the process was started with as fd 0 (and fd 1): moves it to a private
  // close-on-exec descriptor, points fd 0 at /dev/null and fd 1 at fd 2, so nothing a candidate
  // prints or reads touches the protocol. Throws std::runtime_error when fd 0 is not a
  // SOCK_SEQPACKET socket.
  static Channel adopt_stdio();
  explicit Channel(int fd);

  // The next datagram; nullopt when the judge closed its end. Throws std::system_error.
  std::optional<Datagram> receive();
  // One datagram. Throws std::system_error (EMSGSIZE when it does not fit the socket's buffer).
  void send(const std::string& text);

 private:
  UniqueFd socket_;
  std::unique_ptr<char[]> buffer_;  // kMaxMessage + 1 bytes, left uninitialised (untouched until used)
};

}  // namespace hone::runner
