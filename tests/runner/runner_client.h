// tests/runner/runner_client.h: a small judge for tests of hone-runner: starts the real binary
// with its end of a real AF_UNIX SOCK_SEQPACKET socket pair as fd 0 and fd 1 (stderr to a file),
// sends requests (file descriptors as SCM_RIGHTS), receives replies and events with a timeout,
// and reaps the process. Also memfd arenas the test maps itself. Used from one test thread.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace hone::runner_test {

using nlohmann::json;
using namespace std::chrono_literals;

class RunnerProcess {
 public:
  // argv[0] is the executable (found on PATH); `env` entries are added to (or replace) this
  // process's environment. $HONE_RUNNER_WRAP, when set, is put in front of hone-runner's argv.
  explicit RunnerProcess(const std::vector<std::string>& argv,
                         const std::vector<std::pair<std::string, std::string>>& env = {});
  ~RunnerProcess();
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  pid_t pid() const { return pid_; }
  void send_text(const std::string& text, const std::vector<int>& fds = {});
  void send(const json& message, const std::vector<int>& fds = {}) { send_text(message.dump(), fds); }
  // The next datagram as JSON; nullopt at end of input. Throws std::runtime_error on timeout or
  // when a datagram is not JSON.
  std::optional<json> receive(std::chrono::milliseconds timeout = 20s);
  // Sends {"id": next, "op": op, ...fields} and returns the reply with that id; events that
  // arrive first are kept in events(). Throws when the process ends first or a reply carries
  // another id.
  json request(const std::string& op, json fields = json::object(), const std::vector<int>& fds = {},
               std::chrono::milliseconds timeout = 20s);
  std::vector<json>& events() { return events_; }
  // Closes the judge's end of the socket (the runner then sees end of input).
  void close_socket();
  // Waits for the process to end; the wait status. Throws on timeout.
  int wait(std::chrono::milliseconds timeout = 20s);
  std::string stderr_text() const;
  std::int64_t next_id() { return ++id_; }

 private:
  pid_t pid_ = -1;
  int socket_ = -1;
  int stderr_fd_ = -1;
  bool reaped_ = false;
  int status_ = 0;
  std::int64_t id_ = 0;
  std::vector<json> events_;
  std::unique_ptr<char[]> buffer_;  // one datagram, allocated at the first receive
};

// A memfd of `bytes` mapped shared read-write in the test: the judge's side of a host arena.
class MemfdArena {
 public:
  explicit MemfdArena(std::size_t bytes);
  ~MemfdArena();
  MemfdArena(const MemfdArena&) = delete;
  MemfdArena& operator=(const MemfdArena&) = delete;
  int fd() const { return fd_; }
  std::size_t bytes() const { return bytes_; }
  template <class T>
  T* at(std::size_t offset = 0) const {
    return reinterpret_cast<T*>(static_cast<unsigned char*>(data_) + offset);
  }

 private:
  int fd_ = -1;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// A BUF of a float32 tensor: {"arena", "offset", "dtype", "shape", "strides"?}.
json buf(int arena, std::size_t offset, std::vector<std::int64_t> shape, std::optional<std::vector<std::int64_t>> strides = {},
         const std::string& dtype = "float32");
json tensor_arg(json buffer);
json float_arg(double v);
json int_arg(std::int64_t v);

}  // namespace hone::runner_test
