// hone-confine on its own: its refusals (bad command lines, running a candidate as root, a
// missing command) and its device binds.
#include <gtest/gtest.h>
#include <unistd.h>

#include "sandbox_fixture.h"
#include "support/paths.h"

namespace hone::sandbox {
namespace {

using testing::detected_support;

ProcessResult run_confine(const std::vector<std::string>& args) {
  ProcessSpec spec;
  spec.argv = {(executable_path().parent_path() / "hone-confine").string()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout = std::chrono::seconds(10);
  return run_process(spec);
}

TEST(Confine, RefusesBadCommandLinesWithAClearMessage) {
  auto r = run_confine({"--frobnicate", "--", "true"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_NE(r.err.find("unknown option '--frobnicate'"), std::string::npos) << r.err;
  r = run_confine({"--rlimit", "stack=1", "--", "true"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_NE(r.err.find("--rlimit"), std::string::npos) << r.err;
  r = run_confine({"--ro-bind", "/usr", "/usr"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_NE(r.err.find("no command"), std::string::npos) << r.err;
}

TEST(Confine, NeverRunsACandidateAsRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "only meaningful when the tests run as root";
  auto r = run_confine({"--unshare", "--proc", "/proc", "--", "/usr/bin/id", "-u"});
  EXPECT_EQ(r.exit_code, 125);
  EXPECT_NE(r.err.find("--user"), std::string::npos) << r.err;
}

TEST(Confine, DeviceBindsWorkAndOtherBindsCannotOpenDevices) {
  if (!detected_support().usable(SandboxMode::namespaces)) GTEST_SKIP() << "namespaces mode is not usable here";
  // /dev/full stands in for a GPU node: writing to it fails with ENOSPC only if the node works.
  std::vector<std::string> args{"--unshare"};
  if (::geteuid() == 0) args.insert(args.end(), {"--user", "65534:65534"});
  args.insert(args.end(), {"--ro-bind",
                           "/usr",
                           "/usr",
                           "--symlink",
                           "usr/bin",
                           "/bin",
                           "--symlink",
                           "usr/lib",
                           "/lib",
                           "--symlink",
                           "usr/lib64",
                           "/lib64",
                           "--proc",
                           "/proc",
                           "--dev",
                           "/dev",
                           "--dev-bind",
                           "/dev/full",
                           "/dev/gpu-standin",
                           "--ro-bind",
                           "/dev/full",
                           "/dev/no-device",
                           "--",
                           "/bin/sh",
                           "-c",
                           "echo x > /dev/gpu-standin; echo dev-bind=$?; echo x > /dev/no-device; echo ro-bind=$?"});
  auto r = run_confine(args);
  // The device opened and refused the write (ENOSPC); the same node bound without devices did not open.
  EXPECT_NE(r.out.find("dev-bind=1"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.err.find("cannot create /dev/gpu-standin"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("ro-bind=2"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.err.find("cannot create /dev/no-device: Permission denied"), std::string::npos) << r.err;
}

TEST(Confine, ReportsAMissingCommand) {
  auto r = run_confine({"--", "/nonexistent/program"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("cannot run /nonexistent/program"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace hone::sandbox
