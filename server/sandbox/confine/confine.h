// sandbox/confine/confine.h: hone-confine, the helper that confines a command with the kernel's
// own means when bubblewrap is absent (namespaces, pivot_root, rlimits, seccomp), and that applies
// limits and the syscall filter inside bwrap. Its view options are spelled like bwrap's. Each
// function runs in the helper's single thread; errors throw ConfineError.
#pragma once

#include <sys/resource.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sandbox/view_plan.h"

namespace hone::sandbox::confine {

struct ConfineError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Credentials {
  unsigned uid = 0;
  unsigned gid = 0;
  std::vector<unsigned> groups;  // supplementary groups (device nodes' groups)
};

struct ConfineOptions {
  bool unshare = false;             // build namespaces and the view; without it: limits, filter, exec
  bool supervise = false;           // run the command (bwrap) as a child and wait for it
  std::optional<Credentials> user;  // --user UID:GID[:G1,G2]: who the command runs as (root only)
  std::vector<ViewStep> steps;      // --ro-bind, --bind, --dev-bind, --symlink, --tmpfs, ...
  std::optional<std::string> chdir;
  std::vector<std::pair<int, rlim_t>> rlimits;  // --rlimit NAME=VALUE
  bool seccomp = false;
  std::vector<std::string> command;  // after --
};

// Parses hone-confine's command line (argv[0] excluded); throws ConfineError naming the option.
ConfineOptions parse_options(const std::vector<std::string>& args);

// Builds the view from `steps` in the current (new) mount namespace and pivots into it.
void build_view(const std::vector<ViewStep>& steps);

// Installs the system-call filter (no mounts, namespaces, ptrace, kernel keys, BPF, module
// loading; no IPv4/IPv6/packet sockets). Needs no-new-privileges set first.
void install_seccomp_filter();

}  // namespace hone::sandbox::confine
