// support/oom_kills.cpp: /proc/vmstat's oom_kill, read before and after a process runs.
#include "support/oom_kills.h"

#include <algorithm>
#include <fstream>
#include <limits>

namespace hone {

std::optional<std::uint64_t> oom_kill_count() {
  std::ifstream in("/proc/vmstat");
  std::string key;
  std::uint64_t value = 0;
  while (in >> key >> value)
    if (key == "oom_kill") return value;
  return std::nullopt;
}

std::optional<int> oom_kills_since(std::optional<std::uint64_t> before) {
  auto now = oom_kill_count();
  if (!before || !now) return std::nullopt;
  std::uint64_t rise = *now >= *before ? *now - *before : 0;
  return static_cast<int>(std::min<std::uint64_t>(rise, std::numeric_limits<int>::max()));
}

std::string sigkill_clause(std::optional<int> oom_kills, const std::string& who) {
  if (!oom_kills) return "the system may have run out of memory";
  if (*oom_kills == 0)
    return "not by the kernel's out-of-memory killer (/proc/vmstat's oom_kill did not rise while " + who + " ran)";
  return "the kernel's out-of-memory killer ended " + std::to_string(*oom_kills) +
         (*oom_kills == 1 ? " process" : " processes") + " while " + who +
         " ran: the task's tensors, with the copies the judge keeps of them, need more memory than the machine has";
}

}  // namespace hone
