// sandbox/view_plan.h: the filesystem a confined command sees, as an ordered list of steps (binds
// at the same path, the symbolic links on the way to them, private /tmp, /proc and /dev, masks).
// bwrap and hone-confine spell these steps with the same options. Used by Sandbox::wrap (any
// thread) and by tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/sandbox.h"

namespace hone::sandbox {

struct ViewStep {
  enum class Kind { ro_bind, bind, dev_bind, symlink, tmpfs, remount_ro, proc, dev };
  Kind kind = Kind::ro_bind;
  std::filesystem::path source;  // binds: the host path; symlink: the link's text
  std::filesystem::path dest;    // where it appears inside
  std::uint64_t size_bytes = 0;  // tmpfs: its size (0: the kernel's default)
  unsigned perms = 0755;         // tmpfs: its mode
};

// A path with every symbolic link on the way resolved: the real path, and each link met
// (its location and its text). Throws std::invalid_argument naming the path when it is
// relative, missing, or loops.
struct ResolvedPath {
  std::filesystem::path real;
  std::vector<std::pair<std::filesystem::path, std::string>> links;
};
ResolvedPath resolve_links(const std::filesystem::path& path);

// The GPU device nodes under `dev`: nvidia*, nvidia-caps, dri (whatever exists).
std::vector<std::filesystem::path> gpu_device_nodes(const std::filesystem::path& dev = "/dev");

// The view for `policy` (plus system_read_paths() and `extra_read_only`). Read-only folders
// inside another read-only folder are not bound twice; links outside every bound folder are
// recreated; masks of folders, then /dev and the root, are made read-only last (only the scratch
// folder, /tmp and /dev/shm stay writable). Throws std::invalid_argument for a
// relative or missing policy path.
std::vector<ViewStep> plan_view(const SandboxPolicy& policy, const std::vector<std::filesystem::path>& extra_read_only);

// The steps as options (--ro-bind SRC DEST, --symlink TEXT DEST, --perms 1777 --size N --tmpfs
// DEST, --proc /proc, ...), understood alike by bwrap and hone-confine.
std::vector<std::string> view_arguments(const std::vector<ViewStep>& steps);

// Whether `path` exists inside the view: inside a bound path, on the way to one, or the top of a
// private tmpfs, /proc or /dev.
bool visible_in_view(const std::vector<ViewStep>& steps, const std::filesystem::path& path);

}  // namespace hone::sandbox
