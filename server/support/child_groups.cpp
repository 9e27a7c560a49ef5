// support/child_groups.cpp: a fixed table of atomics, so the signal handler needs no lock.
#include "support/child_groups.h"

#include <signal.h>

#include <array>
#include <atomic>

namespace hone {
namespace {

std::array<std::atomic<pid_t>, 512> g_groups{};

extern "C" void on_fatal_signal(int sig) {
  kill_child_groups();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void register_child_group(pid_t pgid) noexcept {
  if (pgid <= 0) return;
  for (auto& slot : g_groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, pgid)) return;
  }
  // Table full (hundreds of live children): that child is still killed by its own deadline.
}

void unregister_child_group(pid_t pgid) noexcept {
  if (pgid <= 0) return;
  for (auto& slot : g_groups) {
    pid_t expected = pgid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

void kill_child_groups() noexcept {
  for (auto& slot : g_groups) {
    const pid_t pgid = slot.load();
    if (pgid > 0) ::kill(-pgid, SIGKILL);
  }
}

void kill_children_on_fatal_signals() noexcept {
  struct sigaction sa {};
  sa.sa_handler = on_fatal_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

}  // namespace hone
