// support/subprocess.cpp: Boost.Process v2 + Asio implementation of run_process.
#include "support/subprocess.h"

#include "support/child_groups.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <array>
// Boost 1.81's Process v2 headers use boost::optional and an unqualified is_convertible without
// including them when BOOST_PROCESS_USE_STD_FS is set: include them first.
#include <boost/optional.hpp>
#include <boost/type_traits.hpp>
// clang-format off
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/writable_pipe.hpp>
#include <boost/asio/write.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/start_dir.hpp>
#include <boost/process/v2/stdio.hpp>
// Header-only mode of 1.81 forgets the definitions of process_environment.
#include <boost/process/v2/impl/environment.ipp>
// clang-format on
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>

extern char** environ;

namespace hone {
namespace {

namespace asio = boost::asio;
namespace bp = boost::process::v2;

// Puts the child in a new process group, so the whole tree can be signalled at once.
struct NewProcessGroup {
  template <class Launcher>
  bp::error_code on_exec_setup(Launcher& launcher, const bp::filesystem::path&, const char* const*&) {
    if (::setpgid(0, 0) != 0) return bp::error_code(errno, bp::system_category());
    close_descriptors_except(launcher.fd_whitelist.data(), launcher.fd_whitelist.size());
    return {};
  }
};

// Reads one pipe to EOF into `sink`, keeping at most `cap` bytes.
class PipeReader : public std::enable_shared_from_this<PipeReader> {
 public:
  PipeReader(asio::readable_pipe& pipe, std::string& sink, std::size_t cap, bool& truncated)
      : pipe_(pipe), sink_(sink), cap_(cap), truncated_(truncated) {}
  void start() {
    auto self = shared_from_this();
    pipe_.async_read_some(asio::buffer(buf_), [self](bp::error_code ec, std::size_t n) {
      if (n > 0) {
        std::size_t room = self->sink_.size() < self->cap_ ? self->cap_ - self->sink_.size() : 0;
        if (n > room) self->truncated_ = true;
        self->sink_.append(self->buf_.data(), std::min(n, room));
      }
      if (!ec) self->start();
    });
  }

 private:
  asio::readable_pipe& pipe_;
  std::string& sink_;
  std::size_t cap_;
  bool& truncated_;
  std::array<char, 65536> buf_{};
};

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

}  // namespace

void close_descriptors_except(const int* keep, std::size_t count) {
  unsigned lo = 3;
  while (true) {
    unsigned next = ~0U;  // the lowest kept descriptor at or above lo
    for (std::size_t i = 0; i < count; ++i)
      if (keep[i] >= 0 && static_cast<unsigned>(keep[i]) >= lo && static_cast<unsigned>(keep[i]) < next)
        next = static_cast<unsigned>(keep[i]);
    if (next == ~0U) {
      ::close_range(lo, ~0U, 0);
      return;
    }
    if (next > lo) ::close_range(lo, next - 1, 0);
    lo = next + 1;
  }
}

std::string ProcessResult::describe() const {
  if (!started) return "could not start: " + start_error;
  if (cancelled) return "cancelled";
  if (timed_out) return "timed out after " + std::to_string(static_cast<int>(seconds + 0.5)) + " s";
  if (signal != 0) return "killed by " + signal_name(signal);
  return "exit code " + std::to_string(exit_code);
}

std::optional<std::filesystem::path> find_program(const std::string& name) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) {
    if (::access(name.c_str(), X_OK) == 0) return std::filesystem::path(name);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (!dir.empty()) {
      std::filesystem::path candidate = std::filesystem::path(dir) / name;
      if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) return candidate;
    }
    start = end + 1;
  }
  return std::nullopt;
}

std::map<std::string, std::string> current_environment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

namespace {

// NAME=VALUE lines of the child's environment: the spec's, else this process's.
std::vector<std::string> environment_lines(const ProcessSpec& spec) {
  std::vector<std::string> lines;
  if (spec.env)
    for (const auto& [k, v] : *spec.env) lines.push_back(k + "=" + v);
  else
    for (char** e = environ; e && *e; ++e) lines.emplace_back(*e);
  return lines;
}

// Writes `data` to the child's stdin, then closes it (at once when there is nothing to write).
void feed_stdin(asio::writable_pipe& pipe, const std::string& data) {
  if (data.empty()) {
    pipe.close();
    return;
  }
  asio::async_write(pipe, asio::buffer(data), [&pipe](bp::error_code, std::size_t) { pipe.close(); });
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult result;
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  if (spec.argv.empty()) {
    result.start_error = "empty command";
    return result;
  }
  auto exe = find_program(spec.argv[0]);
  if (!exe) {
    result.start_error = spec.argv[0] + ": not found on PATH";
    return result;
  }

  asio::io_context ctx;
  asio::readable_pipe out_pipe(ctx), err_pipe(ctx);
  asio::writable_pipe in_pipe(ctx);
  std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());
  std::vector<std::string> env_lines = environment_lines(spec);
  bp::error_code ec;
  std::string cwd = spec.cwd ? spec.cwd->string() : std::filesystem::current_path().string();
  bp::process proc(ctx, exe->string(), args, ec, bp::process_stdio{in_pipe, out_pipe, err_pipe},
                   bp::process_environment(env_lines), bp::process_start_dir(cwd), NewProcessGroup{});
  if (ec) {
    result.start_error = exe->string() + ": " + ec.message();
    return result;
  }
  result.started = true;
  const pid_t pgid = proc.id();
  register_child_group(pgid);

  auto out_reader = std::make_shared<PipeReader>(out_pipe, result.out, spec.max_output_bytes, result.output_truncated);
  auto err_reader = std::make_shared<PipeReader>(err_pipe, result.err, spec.max_output_bytes, result.output_truncated);
  out_reader->start();
  err_reader->start();

  feed_stdin(in_pipe, spec.stdin_data);

  asio::steady_timer timer(ctx);
  bool finished = false;
  if (spec.timeout.count() > 0) {
    timer.expires_after(spec.timeout);
    timer.async_wait([&](bp::error_code tec) {
      if (tec || finished) return;
      result.timed_out = true;
      ::kill(-pgid, SIGKILL);
    });
  }
  // A stop request (from any thread) is carried onto this thread's io_context; declared after
  // ctx so it is unregistered before ctx goes away.
  std::optional<std::stop_callback<std::function<void()>>> on_stop;
  if (spec.stop.stop_possible()) {
    on_stop.emplace(spec.stop, std::function<void()>([&] {
      asio::post(ctx, [&] {
        if (finished) return;
        result.cancelled = true;
        ::kill(-pgid, SIGKILL);
      });
    }));
  }
  proc.async_wait([&](bp::error_code, int) {
    finished = true;
    timer.cancel();
    const int native_status = proc.native_exit_code();
    if (WIFEXITED(native_status)) result.exit_code = WEXITSTATUS(native_status);
    if (WIFSIGNALED(native_status)) result.signal = WTERMSIG(native_status);
    // Grandchildren that outlive the child would keep the pipes open: end the group.
    ::kill(-pgid, SIGKILL);
  });
  ctx.run();
  unregister_child_group(pgid);
  if (result.timed_out || result.cancelled) result.signal = 0;
  result.seconds = elapsed();
  return result;
}

}  // namespace hone
