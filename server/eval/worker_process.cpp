// eval/worker_process.cpp: the eval worker's process, pipes and reader thread (Boost.Process v2 + Asio).
#include "eval/worker_process.h"

#include "support/child_groups.h"
#include "support/oom_kills.h"

#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <mutex>
#include <stdexcept>
// Boost 1.81's Process v2 headers use boost::optional and an unqualified is_convertible without
// including them when BOOST_PROCESS_USE_STD_FS is set: include them first.
#include <boost/optional.hpp>
#include <boost/type_traits.hpp>
// clang-format off
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/writable_pipe.hpp>
#include <boost/asio/write.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/start_dir.hpp>
#include <boost/process/v2/stdio.hpp>
// clang-format on

namespace hone::eval {
namespace {

namespace asio = boost::asio;
namespace bp = boost::process::v2;
using nlohmann::json;

constexpr std::size_t kMaxLineBytes = 64u << 20;   // one protocol message
constexpr std::size_t kMaxStderrLineBytes = 4000;  // one kept stderr line
constexpr std::size_t kEvidenceLines = 40;          // stderr lines copied into evidence

// In the child, before exec: its own process group (so a deadline kills the whole tree), the
// exact environment given, and the address-space limit.
struct WorkerSetup {
  std::vector<const char*> env;  // null-terminated
  std::uint64_t address_space_bytes = 0;

  template <class Launcher>
  bp::error_code on_setup(Launcher& launcher, const bp::filesystem::path&, const char* const*) {
    if (!env.empty()) launcher.env = env.data();
    return {};
  }
  template <class Launcher>
  bp::error_code on_exec_setup(Launcher& launcher, const bp::filesystem::path&, const char* const*&) {
    if (::setpgid(0, 0) != 0) return bp::error_code(errno, bp::system_category());
    close_descriptors_except(launcher.fd_whitelist.data(), launcher.fd_whitelist.size());
    if (address_space_bytes > 0) {
      struct rlimit lim {static_cast<rlim_t>(address_space_bytes), static_cast<rlim_t>(address_space_bytes)};
      if (::setrlimit(RLIMIT_AS, &lim) != 0) return bp::error_code(errno, bp::system_category());
    }
    return {};
  }
};

void ignore_sigpipe_once() {
  // A write to a worker that just died must fail with EPIPE, not end hone.
  static std::once_flag once;
  std::call_once(once, [] { std::signal(SIGPIPE, SIG_IGN); });
}

}  // namespace

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

struct WorkerProcess::Io {
  asio::io_context ctx;
  asio::executor_work_guard<asio::io_context::executor_type> guard{ctx.get_executor()};
  asio::readable_pipe out{ctx};
  asio::readable_pipe err{ctx};
  asio::writable_pipe in{ctx};
  std::optional<bp::process> proc;
  std::string out_buf;
  std::array<char, 16384> err_buf{};
};

WorkerProcess::WorkerProcess(const ProcessSpec& spec, const WorkerProcessOptions& options)
    : io_(std::make_unique<Io>()), exit_code_carries_signal_(options.exit_code_carries_signal) {
  ignore_sigpipe_once();
  if (spec.argv.empty()) throw std::runtime_error("eval worker: empty command");
  for (const auto& a : spec.argv) command_ += (command_.empty() ? "" : " ") + a;
  auto exe = find_program(spec.argv[0]);
  if (!exe) throw std::runtime_error("eval worker: " + spec.argv[0] + " not found (command: " + command_ + ")");

  std::vector<std::string> env_lines;
  WorkerSetup setup;
  setup.address_space_bytes = options.address_space_bytes;
  if (spec.env) {
    for (const auto& [k, v] : *spec.env) env_lines.push_back(k + "=" + v);
    for (const auto& l : env_lines) setup.env.push_back(l.c_str());
    setup.env.push_back(nullptr);
  }
  std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());
  std::string cwd = spec.cwd ? spec.cwd->string() : std::filesystem::current_path().string();

  oom_kills_at_start_ = oom_kill_count();
  bp::error_code ec;
  io_->proc.emplace(io_->ctx, exe->string(), args, ec, bp::process_stdio{io_->in, io_->out, io_->err},
                    bp::process_start_dir(cwd), setup);
  if (ec) throw std::runtime_error("eval worker: could not start " + command_ + ": " + ec.message());
  pid_ = io_->proc->id();
  register_child_group(pid_);

  // Reader side, all on the private thread.
  struct Loops {
    static void out(WorkerProcess* self) {
      asio::async_read_until(self->io_->out, asio::dynamic_buffer(self->io_->out_buf, kMaxLineBytes), '\n',
                             [self](bp::error_code rec, std::size_t n) {
                               if (rec) {
                                 std::lock_guard lock(self->mutex_);
                                 self->stdout_closed_ = true;
                                 self->changed_.notify_all();
                                 return;
                               }
                               std::string line = self->io_->out_buf.substr(0, n - 1);
                               self->io_->out_buf.erase(0, n);
                               self->on_stdout_line(std::move(line));
                               out(self);
                             });
    }
    static void err(WorkerProcess* self) {
      self->io_->err.async_read_some(asio::buffer(self->io_->err_buf), [self](bp::error_code rec, std::size_t n) {
        if (n > 0) self->on_stderr_bytes(std::string_view(self->io_->err_buf.data(), n));
        if (rec) {
          std::lock_guard lock(self->mutex_);
          if (!self->stderr_partial_.empty()) {
            self->stderr_lines_.push_back(std::move(self->stderr_partial_));
            self->stderr_partial_.clear();
            ++self->stderr_total_;
            if (self->stderr_lines_.size() > kStderrLines) self->stderr_lines_.pop_front();
          }
          self->stderr_closed_ = true;
          self->changed_.notify_all();
          return;
        }
        err(self);
      });
    }
  };
  Loops::out(this);
  Loops::err(this);
  io_->proc->async_wait([this](bp::error_code, int) { on_exit(io_->proc->native_exit_code()); });
  reader_ = std::thread([this] { io_->ctx.run(); });
}

WorkerProcess::~WorkerProcess() {
  {
    std::unique_lock lock(mutex_);
    if (!exited_) {
      lock.unlock();
      bp::error_code ec;
      io_->in.close(ec);  // the worker exits on end of input
      lock.lock();
      wait_for_exit(lock, std::chrono::milliseconds(1500));
    }
    if (!exited_) {
      ::kill(-pid_, SIGKILL);
      wait_for_exit(lock, std::chrono::milliseconds(5000));
    }
  }
  // Grandchildren the worker left behind would hold the pipes open.
  ::kill(-pid_, SIGKILL);
  unregister_child_group(pid_);
  io_->guard.reset();
  io_->ctx.stop();
  if (reader_.joinable()) reader_.join();
  if (io_->proc) io_->proc->detach();
}

void WorkerProcess::on_stdout_line(std::string line) {
  json message;
  try {
    message = json::parse(line);
  } catch (const json::parse_error&) {
    // Not a protocol message: keep it with the stderr evidence rather than lose it.
    on_stderr_bytes("[hone: unexpected output on the worker's protocol stream] " + line.substr(0, 500) + "\n");
    return;
  }
  std::lock_guard lock(mutex_);
  inbox_.push_back(std::move(message));
  changed_.notify_all();
}

void WorkerProcess::on_stderr_bytes(std::string_view bytes) {
  std::lock_guard lock(mutex_);
  for (char c : bytes) {
    if (c == '\n') {
      stderr_lines_.push_back(std::move(stderr_partial_));
      stderr_partial_.clear();
      ++stderr_total_;
      if (stderr_lines_.size() > kStderrLines) stderr_lines_.pop_front();
    } else if (stderr_partial_.size() < kMaxStderrLineBytes) {
      stderr_partial_ += c;
    }
  }
}

void WorkerProcess::on_exit(int native_status) {
  std::lock_guard lock(mutex_);
  exited_ = true;
  native_status_ = native_status;
  changed_.notify_all();
}

bool WorkerProcess::running() const {
  std::lock_guard lock(mutex_);
  return !exited_;
}

std::vector<std::string> WorkerProcess::stderr_tail(std::size_t max_lines) const {
  std::lock_guard lock(mutex_);
  std::size_t n = std::min(max_lines, stderr_lines_.size());
  std::vector<std::string> tail(stderr_lines_.end() - static_cast<std::ptrdiff_t>(n), stderr_lines_.end());
  if (!stderr_partial_.empty()) tail.push_back(stderr_partial_);
  return tail;
}

void WorkerProcess::wait_for_exit(std::unique_lock<std::mutex>& lock, std::chrono::milliseconds limit) {
  auto until = std::chrono::steady_clock::now() + limit;
  changed_.wait_until(lock, until, [&] { return exited_; });
  // The last stderr lines arrive with the pipe's end (grandchildren may hold it: do not wait long).
  changed_.wait_until(lock, std::min(until, std::chrono::steady_clock::now() + std::chrono::milliseconds(300)),
                      [&] { return stderr_closed_; });
}

protocol::Evidence WorkerProcess::exit_evidence(std::unique_lock<std::mutex>&) {
  protocol::Evidence ev;
  if (exited_) {
    if (WIFSIGNALED(native_status_)) ev.signal = signal_name(WTERMSIG(native_status_));
    if (WIFEXITED(native_status_)) {
      int code = WEXITSTATUS(native_status_);
      if (exit_code_carries_signal_ && code > 128 && code < 128 + 65)
        ev.signal = signal_name(code - 128);
      else
        ev.exit_code = code;
    }
  }
  const std::uint64_t since_request = stderr_total_ - std::min(stderr_total_, request_first_line_);
  std::size_t n = std::min<std::size_t>({kEvidenceLines, stderr_lines_.size(), static_cast<std::size_t>(since_request)});
  ev.stderr_tail.assign(stderr_lines_.end() - static_cast<std::ptrdiff_t>(n), stderr_lines_.end());
  if (!stderr_partial_.empty()) ev.stderr_tail.push_back(stderr_partial_);
  return ev;
}

WorkerReply WorkerProcess::request(std::string_view method, const json& params, std::chrono::milliseconds deadline,
                                   std::stop_token stop, const std::function<void(const json&)>& on_progress) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto until = t0 + deadline;
  const std::int64_t id = next_id_++;
  WorkerReply reply;
  auto finish = [&](WorkerReply::Kind kind, std::unique_lock<std::mutex>& lock) {
    reply.kind = kind;
    if (kind == WorkerReply::Kind::Died || kind == WorkerReply::Kind::TimedOut || kind == WorkerReply::Kind::Cancelled)
      reply.evidence = exit_evidence(lock);
    if (kind == WorkerReply::Kind::Died && reply.evidence.signal == "SIGKILL")
      reply.evidence.oom_kills = oom_kills_since(oom_kills_at_start_);
    reply.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return reply;
  };
  auto kill_locked = [&](std::unique_lock<std::mutex>& lock) {
      ::kill(-pid_, SIGKILL);
    wait_for_exit(lock, std::chrono::milliseconds(5000));
  };

  std::string line = json{{"id", id}, {"method", method}, {"params", params}}.dump() + "\n";
  {
    std::unique_lock lock(mutex_);
    inbox_.clear();  // stray notifications of an earlier request
    request_first_line_ = stderr_total_;
    if (exited_) {
      wait_for_exit(lock, std::chrono::milliseconds(300));
      return finish(WorkerReply::Kind::Died, lock);
    }
  }
  bp::error_code wec;
  asio::write(io_->in, asio::buffer(line), wec);
  // A write error means the worker is gone; its exit is reported below.

  std::unique_lock lock(mutex_);
  while (true) {
    bool woke = changed_.wait_until(lock, stop, until, [&] { return !inbox_.empty() || exited_ || stdout_closed_; });
    if (stop.stop_requested()) {
      kill_locked(lock);
      return finish(WorkerReply::Kind::Cancelled, lock);
    }
    if (!woke) {
      kill_locked(lock);
      return finish(WorkerReply::Kind::TimedOut, lock);
    }
    while (!inbox_.empty()) {
      json message = std::move(inbox_.front());
      inbox_.pop_front();
      if (!message.is_object() || message.value("id", json()) != json(id)) continue;
      if (message.contains("method")) {
        if (message["method"] == "progress" && on_progress) {
          lock.unlock();
          on_progress(message.value("params", json::object()));
          lock.lock();
        }
        continue;
      }
      if (auto r = message.find("result"); r != message.end()) {
        reply.result = *r;
        return finish(WorkerReply::Kind::Result, lock);
      }
      if (auto e = message.find("error"); e != message.end() && e->is_object()) {
        reply.error_code = e->value("code", std::string("internal"));
        reply.error_message = e->value("message", std::string("(no message)"));
        reply.traceback = e->value("traceback", std::string());
        return finish(WorkerReply::Kind::Error, lock);
      }
    }
    if (exited_ || stdout_closed_) {
      // Replies already written are read before the exit is believed.
      changed_.wait_for(lock, std::chrono::seconds(2), [&] { return !inbox_.empty() || (exited_ && stdout_closed_); });
      if (!inbox_.empty()) continue;
      if (!exited_) kill_locked(lock);
      wait_for_exit(lock, std::chrono::milliseconds(300));
      return finish(WorkerReply::Kind::Died, lock);
    }
  }
}

}  // namespace hone::eval
