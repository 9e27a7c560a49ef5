// support/oom_kills.h: the kernel's count of out-of-memory kills, so a process that died of
// SIGKILL can be told apart: ended by the OOM killer (the count rose while it ran) or not.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace hone {

// /proc/vmstat's oom_kill (every OOM kill on the machine, a cgroup's included); nullopt where it
// cannot be read (not Linux, a kernel before 4.13, /proc not mounted).
std::optional<std::uint64_t> oom_kill_count();

// How much the count rose since `before` (taken when the process started); nullopt when either
// reading is missing.
std::optional<int> oom_kills_since(std::optional<std::uint64_t> before);

// The reason's clause for a process killed by SIGKILL, given oom_kills_since's answer:
// "the kernel's out-of-memory killer ended 1 process while it ran: ...", "not by the kernel's
// out-of-memory killer ...", or, unknown, "the system may have run out of memory".
std::string sigkill_clause(std::optional<int> oom_kills, const std::string& who);

}  // namespace hone
