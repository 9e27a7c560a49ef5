// tests/runner/runner_client.cpp: the test judge's process, socket and memfd handling.
#include "runner_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace hone::runner_test {
namespace {

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

std::vector<std::string> environment(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string s(*e);
    auto eq = s.find('=');
    if (eq != std::string::npos) env[s.substr(0, eq)] = s.substr(eq + 1);
  }
  for (const auto& [k, v] : extra) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

// $HONE_RUNNER_WRAP (words split at spaces, e.g. unshare ... setpriv ...) before hone-runner:
// scripts/gpu/runner.sh runs the GPU tests with the runner confined as the sandbox confines it.
std::vector<std::string> wrapped(const std::vector<std::string>& argv) {
  const char* wrap = std::getenv("HONE_RUNNER_WRAP");
  if (!wrap || !*wrap || argv.empty() || argv[0] != HONE_RUNNER_EXE) return argv;
  std::vector<std::string> out;
  std::string text(wrap);
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    if (end > at) out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

}  // namespace

RunnerProcess::RunnerProcess(const std::vector<std::string>& argv,
                             const std::vector<std::pair<std::string, std::string>>& env) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) fail("socketpair");
  socket_ = pair[0];
  char name[] = "/tmp/hone-runner-stderr-XXXXXX";
  stderr_fd_ = ::mkostemp(name, O_CLOEXEC);
  if (stderr_fd_ < 0) fail("mkostemp");
  ::unlink(name);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pair[1], 0);
  posix_spawn_file_actions_adddup2(&actions, pair[1], 1);
  posix_spawn_file_actions_adddup2(&actions, stderr_fd_, 2);
  std::vector<std::string> words = wrapped(argv);
  std::vector<char*> args;
  for (const auto& a : words) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::vector<std::string> envs = environment(env);
  std::vector<char*> envp;
  for (const auto& e : envs) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const int rc = ::posix_spawnp(&pid_, words[0].c_str(), &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pair[1]);
  if (rc != 0) {
    errno = rc;
    fail("posix_spawn " + argv[0]);
  }
}

RunnerProcess::~RunnerProcess() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status_, 0);
  }
  if (socket_ >= 0) ::close(socket_);
  if (stderr_fd_ >= 0) ::close(stderr_fd_);
}

void RunnerProcess::send_text(const std::string& text, const std::vector<int>& fds) {
  iovec io{const_cast<char*>(text.data()), text.size()};
  msghdr msg{};
  msg.msg_iov = &io;
  msg.msg_iovlen = 1;
  std::vector<char> control(CMSG_SPACE(sizeof(int) * std::max<std::size_t>(fds.size(), 1)));
  if (!fds.empty()) {
    msg.msg_control = control.data();
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  if (::sendmsg(socket_, &msg, MSG_NOSIGNAL) < 0) fail("sendmsg");
}

std::optional<json> RunnerProcess::receive(std::chrono::milliseconds timeout) {
  pollfd p{socket_, POLLIN, 0};
  const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
  if (ready < 0) fail("poll");
  if (ready == 0) throw std::runtime_error("no message from hone-runner within " + std::to_string(timeout.count()) + " ms");
  constexpr std::size_t kMax = std::size_t{8} << 20;
  if (!buffer_) buffer_.reset(new char[kMax]);  // left uninitialised: only what arrives is touched
  char* buffer = buffer_.get();
  const ssize_t n = ::recv(socket_, buffer, kMax, 0);
  if (n < 0) {
    if (errno == ECONNRESET) return std::nullopt;
    fail("recv");
  }
  if (n == 0) return std::nullopt;
  json j = json::parse(std::string(buffer, static_cast<std::size_t>(n)), nullptr, false);
  if (j.is_discarded())
    throw std::runtime_error("hone-runner sent a datagram that is not JSON: " +
                             std::string(buffer, static_cast<std::size_t>(std::min<ssize_t>(n, 200))));
  return j;
}

json RunnerProcess::request(const std::string& op, json fields, const std::vector<int>& fds,
                            std::chrono::milliseconds timeout) {
  const std::int64_t id = next_id();
  fields["id"] = id;
  fields["op"] = op;
  send(fields, fds);
  while (true) {
    std::optional<json> m = receive(timeout);
    if (!m) throw std::runtime_error("hone-runner ended before answering " + op + "; stderr:\n" + stderr_text());
    if (m->contains("event")) {
      events_.push_back(*m);
      continue;
    }
    if (!m->contains("id") || (*m)["id"] != id)
      throw std::runtime_error("a reply for another request while waiting for " + op + " " + std::to_string(id) + ": " +
                               m->dump());
    return *m;
  }
}

void RunnerProcess::close_socket() {
  if (socket_ >= 0) ::close(socket_);
  socket_ = -1;
}

int RunnerProcess::wait(std::chrono::milliseconds timeout) {
  if (reaped_) return status_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const pid_t r = ::waitpid(pid_, &status_, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      return status_;
    }
    if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("hone-runner did not end in time");
    std::this_thread::sleep_for(2ms);
  }
}

std::string RunnerProcess::stderr_text() const {
  std::string out;
  char chunk[4096];
  ssize_t n;
  off_t at = 0;
  while ((n = ::pread(stderr_fd_, chunk, sizeof chunk, at)) > 0) {
    out.append(chunk, static_cast<std::size_t>(n));
    at += n;
  }
  return out;
}

MemfdArena::MemfdArena(std::size_t bytes) : bytes_(bytes) {
  fd_ = ::memfd_create("hone-test-arena", MFD_CLOEXEC);
  if (fd_ < 0) fail("memfd_create");
  if (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) fail("ftruncate");
  data_ = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (data_ == MAP_FAILED) fail("mmap");
}

MemfdArena::~MemfdArena() {
  if (data_ && data_ != MAP_FAILED) ::munmap(data_, bytes_);
  if (fd_ >= 0) ::close(fd_);
}

json buf(int arena, std::size_t offset, std::vector<std::int64_t> shape, std::optional<std::vector<std::int64_t>> strides,
         const std::string& dtype) {
  json b = {{"arena", arena}, {"offset", offset}, {"dtype", dtype}, {"shape", shape}};
  if (strides) b["strides"] = *strides;
  return b;
}

json tensor_arg(json buffer) { return {{"kind", "tensor"}, {"buf", std::move(buffer)}}; }
json float_arg(double v) { return {{"kind", "float"}, {"value", v}}; }
json int_arg(std::int64_t v) { return {{"kind", "int"}, {"value", v}}; }

}  // namespace hone::runner_test
