// sandbox/detect.cpp: finds which confinement this machine supports by trying each for real.
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "sandbox/sandbox.h"
#include "support/paths.h"

namespace hone::sandbox {
namespace {

namespace fs = std::filesystem;

std::string read_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

int landlock_abi() {
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

bool user_namespaces_allowed(bool root) {
  std::string max = read_line("/proc/sys/user/max_user_namespaces");
  if (!max.empty() && std::stol(max) == 0) return false;
  if (root) return true;
  std::string clone = read_line("/proc/sys/kernel/unprivileged_userns_clone");
  std::string apparmor = read_line("/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  return clone != "0" && apparmor != "1";
}

// The first line of a failed probe's stderr, or how it ended.
std::string probe_failure(const ProcessResult& r) {
  std::string err = r.err.substr(0, r.err.find('\n'));
  return err.empty() ? r.describe() : r.describe() + ": " + err;
}

// Runs `true` through the sandbox in `mode` with a minimal policy; empty when it worked.
std::string probe(SandboxMode mode, const SandboxSupport& support) {
  std::string tmpl = (fs::temp_directory_path() / "hone-sandbox-probe-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) return "cannot make a temporary folder for the probe";
  fs::path scratch = tmpl;
  std::string problem;
  try {
    Sandbox sandbox(mode, false, support);
    SandboxPolicy policy;
    policy.scratch = scratch;
    policy.limits.tmp_bytes = 1 << 20;
    ProcessSpec spec;
    spec.argv = {"true"};
    spec.timeout = std::chrono::seconds(20);
    ProcessResult r = run_process(sandbox.wrap(spec, policy));
    if (!r.ok()) problem = probe_failure(r);
  } catch (const std::exception& e) {
    problem = e.what();
  }
  std::error_code ec;
  fs::remove_all(scratch, ec);
  return problem;
}

}  // namespace

bool SandboxSupport::usable(SandboxMode mode) const {
  switch (mode) {
    case SandboxMode::bwrap:
      return bwrap_problem.empty();
    case SandboxMode::namespaces:
      return namespaces_problem.empty();
    case SandboxMode::none:
      return true;
  }
  return false;
}

SandboxMode SandboxSupport::best() const {
  if (running_as_root && usable(SandboxMode::namespaces)) return SandboxMode::namespaces;
  if (usable(SandboxMode::bwrap)) return SandboxMode::bwrap;
  if (usable(SandboxMode::namespaces)) return SandboxMode::namespaces;
  return SandboxMode::none;
}

std::string SandboxSupport::describe() const {
  std::string s;
  SandboxMode mode = best();
  if (mode == SandboxMode::none) {
    s = "sandbox: none usable here: candidate builds and runs would NOT be confined (only secrets are removed from "
        "their environment).\n";
  } else {
    s = "sandbox: " + std::string(to_string(mode)) +
        (mode == SandboxMode::bwrap ? " (bubblewrap, with hone-confine inside)" : " (hone-confine)") +
        ": candidate builds and runs get their own mount, pid, network, ipc and uts namespaces; they see only "
        "system folders, the toolchain, Python and their own files, write only to their scratch folder and a "
        "private /tmp, have no network, no secrets in their environment, no new privileges" +
        (seccomp ? ", a system-call filter" : "") +
        ", and limits on CPU time, processes, open files, file size and (CPU runs) address space; GPU runs have "
        "no address-space limit because the CUDA driver needs a huge one. Wall time is each request's deadline.";
    if (running_as_root) s += " hone runs as root, so candidates run as the user nobody.";
    s += "\n";
  }
  s += "  bwrap: " + (usable(SandboxMode::bwrap) ? "usable (" + bwrap->string() + ")" : "not usable: " + bwrap_problem);
  s += "\n  namespaces: " + (usable(SandboxMode::namespaces) ? "usable (" + confine_helper.string() + ")"
                                                             : "not usable: " + namespaces_problem);
  s += "\n  root: " + std::string(running_as_root ? "yes" : "no") +
       "; user namespaces: " + (user_namespaces ? "yes" : "no") + "; seccomp: " + (seccomp ? "yes" : "no") +
       "; Landlock ABI: " +
       (landlock_abi ? std::to_string(landlock_abi) +
                           " (not needed: the mount namespace "
                           "already limits what is visible)"
                     : "none");
  return s;
}

SandboxSupport detect_support(std::optional<fs::path> confine_helper) {
  SandboxSupport s;
  s.running_as_root = ::geteuid() == 0;
  s.user_namespaces = user_namespaces_allowed(s.running_as_root);
  s.landlock_abi = landlock_abi();
  s.seccomp = ::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
  s.confine_helper = confine_helper ? *confine_helper : executable_path().parent_path() / "hone-confine";
  s.bwrap = find_program("bwrap");
  s.setpriv = find_program("setpriv");
  bool helper_ok = ::access(s.confine_helper.c_str(), X_OK) == 0;
  if (!helper_ok) {
    s.namespaces_problem = "hone's helper " + s.confine_helper.string() + " is missing or not executable";
    s.bwrap_problem = s.namespaces_problem;
    return s;
  }
  if (!s.running_as_root && !s.user_namespaces)
    s.namespaces_problem = "this kernel does not let an unprivileged user create user namespaces";
  else
    s.namespaces_problem = probe(SandboxMode::namespaces, s);
  if (!s.bwrap)
    s.bwrap_problem = "bwrap is not installed (Debian/Ubuntu package bubblewrap)";
  else if (s.running_as_root && !s.setpriv)
    s.bwrap_problem = "setpriv (util-linux) is needed to run bwrap as the sandbox user";
  else
    s.bwrap_problem = probe(SandboxMode::bwrap, s);
  return s;
}

}  // namespace hone::sandbox
