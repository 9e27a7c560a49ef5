// sandbox/confine/main.cpp: hone-confine's entry point. With --unshare: new namespaces, the view,
// a tiny init as pid 1 that drops privileges and runs the command; with --supervise: bwrap as a
// child it outlives (the stage around bwrap); otherwise: limits, the syscall filter and exec (the
// stage inside bwrap). Exits with the command's code, or 128+N when a signal
// N killed it (bwrap's convention); 125 when confinement itself failed.
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "sandbox/confine/confine.h"

namespace hone::sandbox::confine {
namespace {

constexpr int kConfineFailed = 125;

void check(bool ok, const std::string& what) {
  if (!ok) throw ConfineError(what + ": " + std::strerror(errno));
}

void write_file(const char* path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) throw ConfineError(std::string("cannot write ") + path);
}

int status_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

// Limits, no new privileges, the filter, then the command. Returns only on failure.
int exec_confined(const ConfineOptions& o) {
  for (const auto& [resource, value] : o.rlimits) {
    struct rlimit current {};
    check(::getrlimit(resource, &current) == 0, "getrlimit");
    rlim_t v = current.rlim_max == RLIM_INFINITY ? value : std::min<rlim_t>(value, current.rlim_max);
    // CPU time: SIGXCPU at the limit (a clear outcome), SIGKILL a second later if it is ignored.
    rlim_t hard = resource == RLIMIT_CPU && v + 1 <= current.rlim_max ? v + 1 : v;
    struct rlimit wanted {
      v, hard
    };
    check(::setrlimit(resource, &wanted) == 0, "cannot set a resource limit");
  }
  check(::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "cannot set no-new-privileges");
  if (o.seccomp) install_seccomp_filter();
  if (o.chdir) check(::chdir(o.chdir->c_str()) == 0, "cannot enter " + *o.chdir);
  // Only stdin, stdout and stderr pass: no descriptor hone (or bwrap) left open reaches the command.
  if (::close_range(3, ~0u, 0) != 0)
    for (int fd = 3; fd < 4096; ++fd) ::close(fd);
  std::vector<char*> argv;
  for (const auto& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  std::fprintf(stderr, "hone-confine: cannot run %s: %s\n", argv[0], std::strerror(errno));
  return 127;
}

// Empties the capability bounding set: no exec can gain a capability afterwards. Needs
// CAP_SETPCAP, so it runs before the change of user.
void drop_bounding_set() {
  std::ifstream last_file("/proc/sys/kernel/cap_last_cap");
  int last = CAP_LAST_CAP;
  last_file >> last;
  for (int cap = 0; cap <= last; ++cap)
    check(::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0 || errno == EINVAL, "cannot drop a capability");
}

// Empties the ambient and current capability sets of this process.
void drop_capabilities() {
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct __user_cap_header_struct header {
    _LINUX_CAPABILITY_VERSION_3, 0
  };
  struct __user_cap_data_struct data[2]{};
  check(::syscall(SYS_capset, &header, data) == 0, "cannot drop capabilities");
}

// pid 1 of the new pid namespace: builds the view, drops privileges, runs the command and
// reaps orphans; when it returns, the kernel ends every process left in the namespace.
int sandbox_init(const ConfineOptions& o, bool root) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  build_view(o.steps);
  ::sethostname("hone-sandbox", 12);
  drop_bounding_set();
  if (root) {
    const Credentials& c = *o.user;
    std::vector<gid_t> groups(c.groups.begin(), c.groups.end());
    check(::setgroups(groups.size(), groups.data()) == 0, "cannot set the sandbox user's groups");
    check(::setresgid(c.gid, c.gid, c.gid) == 0, "cannot become the sandbox group");
    check(::setresuid(c.uid, c.uid, c.uid) == 0, "cannot become the sandbox user");
  }
  drop_capabilities();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);  // a change of credentials cleared it
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  pid_t command = ::fork();
  check(command >= 0, "cannot fork the command");
  if (command == 0) {
    ::setsid();
    _exit(exec_confined(o));
  }
  int code = kConfineFailed;
  while (true) {
    int status = 0;
    pid_t done = ::wait(&status);
    if (done == command) return status_code(status);
    if (done < 0 && errno == ECHILD) return code;
  }
}

pid_t g_child = 0;

void kill_child(int) {
  if (g_child > 0) ::kill(g_child, SIGKILL);
}

// Waits for `child` (pid 1 of the sandbox, or bwrap), ending it if this process is asked to end,
// and returns its exit code. Being the child's parent for its whole life matters: bwrap's
// --die-with-parent and pid 1's parent-death signal follow the parent *thread*, and hone may
// start a sandbox from a thread that ends long before the sandbox does.
int supervise(pid_t child) {
  g_child = child;
  struct sigaction sa {};
  sa.sa_handler = kill_child;
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(sig, &sa, nullptr);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) throw ConfineError(std::string("waitpid: ") + std::strerror(errno));
  return status_code(status);
}

// --supervise: runs the command (bwrap) as a child, unchanged, and waits for it.
int run_supervised(const ConfineOptions& o) {
  std::fflush(nullptr);
  pid_t child = ::fork();
  check(child >= 0, "cannot fork");
  if (child == 0) {
    std::vector<char*> argv;
    for (const auto& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "hone-confine: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  return supervise(child);
}

int run_unshared(const ConfineOptions& o) {
  const bool root = ::geteuid() == 0;
  if (root && !o.user) throw ConfineError("running as root: --user UID:GID is required (candidates never run as root)");
  if (!root && o.user) throw ConfineError("--user needs root");
  const uid_t uid = ::getuid();
  const gid_t gid = ::getgid();
  int flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
  if (!root) flags |= CLONE_NEWUSER;
  check(::unshare(flags) == 0, "cannot create namespaces");
  if (!root) {
    write_file("/proc/self/setgroups", "deny");
    write_file("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1");
    write_file("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1");
  }
  std::fflush(nullptr);
  pid_t init = ::fork();
  check(init >= 0, "cannot fork");
  if (init == 0) {
    try {
      _exit(sandbox_init(o, root));
    } catch (const ConfineError& e) {
      std::fprintf(stderr, "hone-confine: %s\n", e.what());
      _exit(kConfineFailed);
    }
  }
  return supervise(init);
}

}  // namespace
}  // namespace hone::sandbox::confine

int main(int argc, char** argv) {
  using namespace hone::sandbox::confine;
  try {
    ConfineOptions o = parse_options(std::vector<std::string>(argv + 1, argv + argc));
    // The kernel's OOM killer takes the confined command first (CPU candidates may use the
    // machine's memory, and hone's allocation poisoning touches every page), never the user's
    // editor or hone itself. Set before any namespace and inherited by everything started here.
    std::ofstream("/proc/self/oom_score_adj") << "1000";
    if (o.supervise) return run_supervised(o);
    return o.unshare ? run_unshared(o) : exec_confined(o);
  } catch (const ConfineError& e) {
    std::fprintf(stderr, "hone-confine: %s\n", e.what());
    return kConfineFailed;
  }
}
