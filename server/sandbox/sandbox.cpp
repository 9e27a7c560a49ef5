// sandbox/sandbox.cpp: the Sandbox: picks the mode, reports it, and turns a command into its
// confined form (bwrap + hone-confine, or hone-confine alone).
#include "sandbox/sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>

#include "sandbox/environment.h"
#include "sandbox/view_plan.h"

namespace hone::sandbox {
namespace {

namespace fs = std::filesystem;

constexpr unsigned kNobody = 65534;

// The supplementary groups the sandbox user (nobody, when hone runs as root) needs: the groups
// of device nodes not open to everyone, and of bound paths that only their group may read.
// Throws std::invalid_argument naming a bound path that only its owner may read (a device node
// only root may open stays closed to candidates, as it is to any other user).
std::vector<unsigned> sandbox_groups(const std::vector<ViewStep>& steps) {
  std::set<unsigned> groups;
  for (const auto& s : steps) {
    if (s.kind != ViewStep::Kind::ro_bind && s.kind != ViewStep::Kind::dev_bind) continue;
    struct stat st {};
    if (::stat(s.source.c_str(), &st) != 0) continue;
    const bool dir = S_ISDIR(st.st_mode);
    const bool device = S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode);
    const mode_t others = S_IROTH | (device ? S_IWOTH : 0) | (dir ? S_IXOTH : 0);
    if ((st.st_mode & others) == others) continue;
    if (((st.st_mode >> 3) & others) == others) {
      groups.insert(st.st_gid);
      continue;
    }
    if (s.kind == ViewStep::Kind::dev_bind) continue;
    char mode[8];
    std::snprintf(mode, sizeof mode, "%03o", st.st_mode & 0777);
    throw std::invalid_argument("sandbox: " + s.source.string() + " (mode " + mode +
                                ") is readable only by its owner, and candidates run as the user nobody because "
                                "hone runs as root; make it readable by others, or run hone as a normal user");
  }
  return {groups.begin(), groups.end()};
}

std::string join(const std::vector<unsigned>& values, const std::string& first, const std::string& sep) {
  std::string out;
  for (unsigned v : values) out += (out.empty() ? first : sep) + std::to_string(v);
  return out;
}

bool is_within(const fs::path& path, const fs::path& root) {
  auto mismatch = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return mismatch.first == root.end();
}

// Refuses a scratch folder that is, holds, or lies inside a system folder, or that is or holds a
// home or a shared temporary folder: it becomes writable for the candidate and, when hone runs
// as root, is handed to the sandbox user.
void check_scratch(const fs::path& scratch) {
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(scratch, ec);
  std::vector<fs::path> system{"/proc", "/dev", "/boot", "/etc"};
  for (const auto& p : system_read_paths()) system.push_back(fs::weakly_canonical(p, ec));
  std::vector<fs::path> shared{"/", "/tmp", "/var/tmp", "/home", "/root", "/var", "/run", "/opt", "/srv", "/mnt"};
  if (const char* home = std::getenv("HOME")) shared.push_back(fs::weakly_canonical(home, ec));
  auto refuse = [&](const fs::path& p) {
    throw std::invalid_argument("sandbox: " + scratch.string() + " cannot be a scratch folder (it would expose " +
                                p.string() + " to candidates); give each candidate a folder of its own");
  };
  for (const auto& p : system)
    if (is_within(real, p) || is_within(p, real)) refuse(p);
  for (const auto& p : shared)
    if (is_within(p, real)) refuse(p);
}

// Hands the folder open at `dir` and everything below it to uid:gid without ever following a
// symbolic link: a candidate still running in the same scratch cannot redirect the walk.
void hand_over_tree(int dir, unsigned uid, unsigned gid, const fs::path& shown) {
  DIR* d = ::fdopendir(dir);
  if (!d) {
    ::close(dir);
    throw std::invalid_argument("sandbox: cannot list " + shown.string() + ": " + std::strerror(errno));
  }
  while (struct dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    if (::fchownat(::dirfd(d), e->d_name, uid, gid, AT_SYMLINK_NOFOLLOW) != 0) continue;
    int child = ::openat(::dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child >= 0) hand_over_tree(child, uid, gid, shown / e->d_name);
  }
  ::closedir(d);
}

// Makes the scratch folder and, when candidates run as another user, hands it to that user.
void prepare_scratch(const fs::path& scratch, const std::optional<std::pair<unsigned, unsigned>>& user) {
  check_scratch(scratch);
  std::error_code ec;
  fs::create_directories(scratch, ec);
  if (ec)
    throw std::invalid_argument("sandbox: cannot create the scratch folder " + scratch.string() + ": " + ec.message());
  if (!user) return;
  int dir = ::open(scratch.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0 || ::fchown(dir, user->first, user->second) != 0) {
    if (dir >= 0) ::close(dir);
    throw std::invalid_argument("sandbox: cannot hand " + scratch.string() +
                                " to the sandbox user: " + std::strerror(errno));
  }
  hand_over_tree(dir, user->first, user->second, scratch);
}

std::vector<std::string> limit_arguments(const SandboxLimits& limits) {
  std::vector<std::string> args;
  auto add = [&](const char* name, std::uint64_t value) {
    if (value) args.insert(args.end(), {"--rlimit", std::string(name) + "=" + std::to_string(value)});
  };
  add("cpu", limits.cpu_seconds);
  add("as", limits.address_space_bytes);
  add("nofile", limits.open_files);
  add("nproc", limits.processes);
  add("fsize", limits.file_size_bytes);
  args.insert(args.end(), {"--rlimit", "core=0", "--seccomp"});
  return args;
}

}  // namespace

std::string_view to_string(SandboxMode mode) {
  switch (mode) {
    case SandboxMode::bwrap:
      return "bwrap";
    case SandboxMode::namespaces:
      return "namespaces";
    case SandboxMode::none:
      return "none";
  }
  return "none";
}

std::optional<SandboxMode> parse_sandbox_mode(std::string_view text) {
  for (auto m : {SandboxMode::bwrap, SandboxMode::namespaces, SandboxMode::none})
    if (text == to_string(m)) return m;
  return std::nullopt;
}

SandboxRequest request_from_environment(SandboxRequest request) {
  const char* value = std::getenv("HONE_SANDBOX");
  if (!value || !*value) return request;
  auto mode = parse_sandbox_mode(value);
  if (!mode) throw std::runtime_error(std::string("HONE_SANDBOX=") + value + " is not one of bwrap, namespaces, none");
  request.force = mode;
  return request;
}

Sandbox::Sandbox(SandboxMode mode, bool explicitly_disabled, SandboxSupport support)
    : mode_(mode), explicitly_disabled_(explicitly_disabled), support_(std::move(support)) {}

Sandbox Sandbox::create(const SandboxRequest& request) {
  SandboxSupport support = detect_support(request.confine_helper);
  if (request.disabled || request.force == SandboxMode::none) return Sandbox(SandboxMode::none, true, support);
  if (request.force) {
    if (!support.usable(*request.force))
      throw std::runtime_error(
          "sandbox mode " + std::string(to_string(*request.force)) + " was asked for but " +
          (*request.force == SandboxMode::bwrap ? support.bwrap_problem : support.namespaces_problem));
    return Sandbox(*request.force, false, support);
  }
  SandboxMode best = support.best();
  return Sandbox(best, false, support);
}

SandboxReport Sandbox::report() const {
  SandboxReport r;
  r.mode = mode_;
  r.explicitly_disabled = explicitly_disabled_;
  if (mode_ == SandboxMode::none && explicitly_disabled_) {
    r.warning =
        "the sandbox is off by request (--no-sandbox): candidate builds and runs can read your files, write "
        "anywhere you can and use the network; only secrets are removed from their environment";
  } else if (mode_ == SandboxMode::none) {
    r.warning = "no sandbox works on this machine (bwrap: " + support_.bwrap_problem +
                "; namespaces: " + support_.namespaces_problem +
                "), so candidate builds and runs are NOT confined; only secrets are removed from their environment";
  } else if (!support_.seccomp) {
    r.warning = "this kernel has no seccomp, so confined candidates run without a system-call filter";
  }
  return r;
}

std::optional<std::pair<unsigned, unsigned>> Sandbox::sandbox_user() const {
  if (mode_ == SandboxMode::none || !support_.running_as_root) return std::nullopt;
  return std::make_pair(kNobody, kNobody);
}

ProcessSpec Sandbox::wrap(const ProcessSpec& spec, const SandboxPolicy& policy) const {
  if (spec.argv.empty()) throw std::invalid_argument("sandbox: empty command");
  if (mode_ == SandboxMode::bwrap && !support_.bwrap) throw std::runtime_error("sandbox: bwrap mode without bwrap");
  ProcessSpec out = spec;
  out.env = spec.env ? confined_environment(*spec.env, true, policy.scratch, policy.set_env)
                     : confined_environment(current_environment(), false, policy.scratch, policy.set_env);
  if (mode_ == SandboxMode::none) return out;

  auto user = sandbox_user();
  prepare_scratch(policy.scratch, user);
  std::vector<fs::path> extra;
  if (mode_ == SandboxMode::bwrap) extra.push_back(support_.confine_helper);
  std::vector<ViewStep> steps = plan_view(policy, extra);
  fs::path cwd = spec.cwd ? fs::absolute(*spec.cwd) : policy.scratch;
  if (!visible_in_view(steps, cwd))
    throw std::invalid_argument("sandbox: the working folder " + cwd.string() + " is not visible inside the sandbox");

  std::vector<std::string> command = spec.argv;
  if (command[0].find('/') == std::string::npos)
    if (auto found = find_program(command[0])) command[0] = found->string();

  std::vector<std::string> argv;
  std::vector<std::string> view = view_arguments(steps);
  std::vector<std::string> limits = limit_arguments(policy.limits);
  if (mode_ == SandboxMode::bwrap) {
    // hone-confine stays bwrap's parent: --die-with-parent must not follow hone's spawning thread.
    argv = {support_.confine_helper.string(), "--supervise", "--"};
    if (user) {
      std::string groups = join(sandbox_groups(steps), "", ",");
      argv.insert(argv.end(), {support_.setpriv.value_or("setpriv").string(), "--reuid=" + std::to_string(user->first),
                               "--regid=" + std::to_string(user->second)});
      argv.push_back(groups.empty() ? "--clear-groups" : "--groups=" + groups);
      argv.push_back("--");
    }
    argv.insert(argv.end(), {support_.bwrap->string(), "--unshare-all", "--die-with-parent", "--new-session",
                             "--hostname", "hone-sandbox"});
    argv.insert(argv.end(), view.begin(), view.end());
    argv.insert(argv.end(), {"--chdir", cwd.string(), "--", support_.confine_helper.string()});
    argv.insert(argv.end(), limits.begin(), limits.end());
  } else {
    argv = {support_.confine_helper.string(), "--unshare"};
    if (user) {
      std::string who = std::to_string(user->first) + ":" + std::to_string(user->second);
      argv.insert(argv.end(), {"--user", who + join(sandbox_groups(steps), ":", ",")});
    }
    argv.insert(argv.end(), view.begin(), view.end());
    argv.insert(argv.end(), {"--chdir", cwd.string()});
    argv.insert(argv.end(), limits.begin(), limits.end());
  }
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  out.argv = std::move(argv);
  out.cwd = std::nullopt;
  return out;
}

ProcessResult Sandbox::unwrap_result(ProcessResult result) const {
  if (mode_ != SandboxMode::none && result.started && !result.timed_out && result.signal == 0 &&
      result.exit_code > 128 && result.exit_code < 128 + 65) {
    result.signal = result.exit_code - 128;
    result.exit_code = -1;
  }
  return result;
}

}  // namespace hone::sandbox
