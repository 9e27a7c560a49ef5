// sandbox/confine/seccomp_filter.cpp: the system-call filter of confined commands (libseccomp).
// Everything is allowed except what a compiler, Python, torch or CUDA never needs and an escape
// would: mounts, new namespaces, ptrace, kernel keys, BPF, modules, IPv4/IPv6/packet sockets.
#include <linux/sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "sandbox/confine/confine.h"

namespace hone::sandbox::confine {
namespace {

constexpr const char* kDenied[] = {"mount",
                                   "umount2",
                                   "pivot_root",
                                   "chroot",
                                   "swapon",
                                   "swapoff",
                                   "reboot",
                                   "kexec_load",
                                   "kexec_file_load",
                                   "init_module",
                                   "finit_module",
                                   "delete_module",
                                   "acct",
                                   "settimeofday",
                                   "clock_settime",
                                   "clock_adjtime",
                                   "adjtimex",
                                   "keyctl",
                                   "add_key",
                                   "request_key",
                                   "bpf",
                                   "userfaultfd",
                                   "unshare",
                                   "setns",
                                   "ptrace",
                                   "process_vm_readv",
                                   "process_vm_writev",
                                   "open_by_handle_at",
                                   "name_to_handle_at",
                                   "iopl",
                                   "ioperm",
                                   "quotactl",
                                   "lookup_dcookie",
                                   "syslog",
                                   "vhangup",
                                   "mount_setattr",
                                   "move_mount",
                                   "open_tree",
                                   "fsopen",
                                   "fsmount",
                                   "fsconfig",
                                   "fspick",
                                   "fanotify_init"};

constexpr unsigned long kNamespaceFlags[] = {CLONE_NEWNS,  CLONE_NEWUSER, CLONE_NEWPID,   CLONE_NEWNET,
                                             CLONE_NEWIPC, CLONE_NEWUTS,  CLONE_NEWCGROUP};

struct Release {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};

void check(int rc, const std::string& what) {
  if (rc < 0) throw ConfineError("seccomp: " + what + ": " + std::strerror(-rc));
}

}  // namespace

void install_seccomp_filter() {
  std::unique_ptr<void, Release> ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) throw ConfineError("seccomp: cannot create a filter");
  for (const char* name : kDenied) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;  // not a system call on this architecture
    check(seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), nr, 0), name);
  }
  for (unsigned long flag : kNamespaceFlags)
    check(
        seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag)),
        "clone");
  // clone3 passes its flags in memory a filter cannot read: report it missing, so libc uses clone.
  int clone3 = seccomp_syscall_resolve_name("clone3");
  if (clone3 != __NR_SCMP_ERROR) check(seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), clone3, 0), "clone3");
  for (scmp_datum_t family : {AF_INET, AF_INET6, AF_PACKET})
    check(seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, family)),
          "socket");
  check(seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                         SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI)),
        "ioctl");
  check(seccomp_load(ctx.get()), "load");
}

}  // namespace hone::sandbox::confine
