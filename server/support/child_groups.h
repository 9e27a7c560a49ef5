// support/child_groups.h: the process groups of the children hone has running (compilers, the
// eval worker, confined candidates), so that hone ending on a signal takes them with it instead
// of leaving them to load the machine (an orphaned nvcc or worker skews every later timing).
#pragma once

#include <sys/types.h>

namespace hone {

// Remember / forget a running child's process group (its leader's pid). Thread-safe.
void register_child_group(pid_t pgid) noexcept;
void unregister_child_group(pid_t pgid) noexcept;

// SIGKILL every registered group. Async-signal-safe.
void kill_child_groups() noexcept;

// On SIGINT, SIGTERM or SIGHUP: kill the registered groups, then die of the same signal. A
// command that handles a signal itself (hone optimize stops cleanly) installs its own handler
// over this one and calls kill_child_groups() before exiting.
void kill_children_on_fatal_signals() noexcept;

}  // namespace hone
