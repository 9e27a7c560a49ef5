// sandbox/confine/mounts.cpp: builds a confined command's filesystem in a new mount namespace: a
// tmpfs root holding bind mounts of the allowed host paths, then pivot_root into it.
#include <fcntl.h>
#include <linux/mount.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sandbox/confine/confine.h"

namespace hone::sandbox::confine {
namespace {

namespace fs = std::filesystem;

const fs::path kOld = "/oldroot";
const fs::path kNew = "/newroot";

[[noreturn]] void fail(const std::string& what) { throw ConfineError(what + ": " + std::strerror(errno)); }

void check(int rc, const std::string& what) {
  if (rc != 0) fail(what);
}

fs::path inside(const fs::path& root, const fs::path& p) { return root / p.relative_path(); }

// Creates the missing folders of `p` (existing ones may sit on read-only mounts).
void make_dirs(const fs::path& p) {
  fs::path cur = "/";
  struct stat st {};
  for (const auto& part : p.relative_path()) {
    cur /= part;
    if (::lstat(cur.c_str(), &st) == 0) continue;
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) fail("cannot create " + cur.string());
  }
}

void make_file(const fs::path& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) == 0) return;
  make_dirs(p.parent_path());
  int fd = ::open(p.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0444);
  if (fd < 0 && errno != EEXIST) fail("cannot create " + p.string());
  if (fd >= 0) ::close(fd);
}

// Sets mount attributes on a mount (and, with `recursive`, every mount below it). Kernels older
// than 5.12 lack mount_setattr: there the top mount is remounted, keeping its locked flags.
void set_attributes(const fs::path& p, std::uint64_t attrs, bool recursive) {
  struct mount_attr attr {};
  attr.attr_set = attrs;
  if (::syscall(SYS_mount_setattr, AT_FDCWD, p.c_str(), recursive ? AT_RECURSIVE : 0, &attr, sizeof attr) == 0) return;
  if (errno != ENOSYS) fail("cannot set the mount flags of " + p.string());
  struct statvfs sv {};
  check(::statvfs(p.c_str(), &sv), "cannot inspect " + p.string());
  unsigned long flags = MS_REMOUNT | MS_BIND;
  if (attrs & MOUNT_ATTR_RDONLY) flags |= MS_RDONLY;
  if ((attrs & MOUNT_ATTR_NOSUID) || (sv.f_flag & ST_NOSUID)) flags |= MS_NOSUID;
  if ((attrs & MOUNT_ATTR_NODEV) || (sv.f_flag & ST_NODEV)) flags |= MS_NODEV;
  if (sv.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (sv.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  check(::mount(nullptr, p.c_str(), nullptr, flags, nullptr), "cannot remount " + p.string());
}

void bind(const fs::path& source, const fs::path& dest, std::uint64_t attrs) {
  struct stat st {};
  check(::stat(source.c_str(), &st), "cannot find " + source.lexically_relative(kOld).string());
  if (S_ISDIR(st.st_mode))
    make_dirs(dest);
  else
    make_file(dest);
  check(::mount(source.c_str(), dest.c_str(), nullptr, MS_BIND | MS_REC, nullptr),
        "cannot bind " + source.string() + " on " + dest.string());
  set_attributes(dest, attrs, true);
}

void mount_tmpfs(const fs::path& dest, unsigned perms, std::uint64_t size) {
  make_dirs(dest);
  char data[64];
  if (size)
    std::snprintf(data, sizeof data, "mode=%o,size=%llu", perms, static_cast<unsigned long long>(size));
  else
    std::snprintf(data, sizeof data, "mode=%o", perms);
  check(::mount("tmpfs", dest.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, data),
        "cannot mount a tmpfs on " + dest.string());
}

// A minimal /dev: the harmless character devices, the usual links, and a folder for shm.
void mount_dev(const fs::path& dest) {
  mount_tmpfs(dest, 0755, 1 << 20);
  for (const char* node : {"null", "zero", "full", "random", "urandom", "tty"})
    bind(kOld / "dev" / node, dest / node, MOUNT_ATTR_NOSUID);
  const std::pair<const char*, const char*> links[] = {{"/proc/self/fd", "fd"},
                                                       {"/proc/self/fd/0", "stdin"},
                                                       {"/proc/self/fd/1", "stdout"},
                                                       {"/proc/self/fd/2", "stderr"}};
  for (const auto& [target, name] : links)
    check(::symlink(target, (dest / name).c_str()), "cannot link /dev/" + std::string(name));
  make_dirs(dest / "shm");
}

void apply(const ViewStep& s) {
  const fs::path dest = inside(kNew, s.dest);
  switch (s.kind) {
    case ViewStep::Kind::ro_bind:
      return bind(inside(kOld, s.source), dest, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
    case ViewStep::Kind::bind:
      return bind(inside(kOld, s.source), dest, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
    case ViewStep::Kind::dev_bind:
      return bind(inside(kOld, s.source), dest, MOUNT_ATTR_NOSUID);
    case ViewStep::Kind::symlink:
      make_dirs(dest.parent_path());
      if (::symlink(s.source.c_str(), dest.c_str()) != 0 && errno != EEXIST) fail("cannot link " + s.dest.string());
      return;
    case ViewStep::Kind::tmpfs:
      return mount_tmpfs(dest, s.perms, s.size_bytes);
    case ViewStep::Kind::remount_ro:
      return set_attributes(dest, MOUNT_ATTR_RDONLY, false);
    case ViewStep::Kind::proc:
      make_dirs(dest);
      check(::mount("proc", dest.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr),
            "cannot mount /proc (is this a container that masks /proc?)");
      return;
    case ViewStep::Kind::dev:
      return mount_dev(dest);
  }
}

}  // namespace

void build_view(const std::vector<ViewStep>& steps) {
  // Bind sources may hold links that point elsewhere on the host: resolve them while the host
  // root is still the root.
  std::vector<ViewStep> resolved = steps;
  for (auto& s : resolved) {
    if (s.kind != ViewStep::Kind::ro_bind && s.kind != ViewStep::Kind::bind && s.kind != ViewStep::Kind::dev_bind)
      continue;
    std::error_code ec;
    fs::path real = fs::canonical(s.source, ec);
    if (ec) throw ConfineError("cannot find " + s.source.string() + ": " + ec.message());
    s.source = real;
  }
  check(::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr), "cannot make the mounts private");
  // A private tmpfs over /tmp becomes the base; the host root stays reachable at /oldroot.
  mount_tmpfs("/tmp", 0755, 1 << 20);
  check(::mkdir("/tmp/oldroot", 0755), "cannot create /tmp/oldroot");
  check(::mkdir("/tmp/newroot", 0755), "cannot create /tmp/newroot");
  check(static_cast<int>(::syscall(SYS_pivot_root, "/tmp", "/tmp/oldroot")), "cannot pivot_root to the base");
  check(::chdir("/"), "cannot enter the base");
  mount_tmpfs(kNew, 0755, 1 << 20);
  for (const auto& s : resolved) apply(s);
  check(::umount2(kOld.c_str(), MNT_DETACH), "cannot detach the host root");
  check(::chdir(kNew.c_str()), "cannot enter the new root");
  check(static_cast<int>(::syscall(SYS_pivot_root, ".", ".")), "cannot pivot_root to the new root");
  check(::umount2(".", MNT_DETACH), "cannot detach the base");
  check(::chdir("/"), "cannot enter /");
}

}  // namespace hone::sandbox::confine
