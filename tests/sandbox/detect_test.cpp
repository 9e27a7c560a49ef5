// Detection and reporting: what this machine supports, the verdict's sandbox facts and warnings,
// forced modes, and wrap()'s refusals of bad policies.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdexcept>

#include "sandbox/sandbox.h"
#include "sandbox_fixture.h"

namespace hone::sandbox {
namespace {

using testing::detected_support;
using testing::Tree;

TEST(Detect, FindsAUsableModeAndSaysSo) {
  const SandboxSupport& s = detected_support();
  EXPECT_EQ(s.running_as_root, ::geteuid() == 0);
  std::string text = s.describe();
  EXPECT_NE(text.find("bwrap: "), std::string::npos) << text;
  EXPECT_NE(text.find("namespaces: "), std::string::npos) << text;
  if (s.best() == SandboxMode::none) GTEST_SKIP() << "no sandbox mode works on this machine:\n" << text;
  EXPECT_TRUE(s.usable(s.best()));
  if (s.running_as_root) {
    EXPECT_EQ(s.best(), SandboxMode::namespaces) << text;
  }
  std::cout << text << "\n";
}

TEST(Detect, MissingHelperMakesBothModesUnusable) {
  SandboxSupport s = detect_support(std::filesystem::path("/nonexistent/hone-confine"));
  EXPECT_FALSE(s.usable(SandboxMode::namespaces));
  EXPECT_FALSE(s.usable(SandboxMode::bwrap));
  EXPECT_NE(s.namespaces_problem.find("/nonexistent/hone-confine"), std::string::npos);
  EXPECT_EQ(s.best(), SandboxMode::none);
  Sandbox none(SandboxMode::none, false, s);
  EXPECT_NE(none.report().warning.find("NOT confined"), std::string::npos) << none.report().warning;
}

TEST(Report, ExplicitlyDisabledIsRecordedAndWarned) {
  Sandbox sb = Sandbox::create({.disabled = true});
  SandboxReport r = sb.report();
  EXPECT_EQ(r.mode, SandboxMode::none);
  EXPECT_TRUE(r.explicitly_disabled);
  EXPECT_NE(r.warning.find("--no-sandbox"), std::string::npos);
}

TEST(Report, TheDefaultHasNoWarning) {
  if (detected_support().best() == SandboxMode::none) GTEST_SKIP() << "no sandbox mode works here";
  Sandbox sb = Sandbox::create({});
  EXPECT_EQ(sb.mode(), detected_support().best());
  EXPECT_FALSE(sb.report().explicitly_disabled);
  EXPECT_EQ(sb.report().warning, "");
}

TEST(Request, EnvironmentForcesAModeOrFailsClearly) {
  ::setenv("HONE_SANDBOX", "none", 1);
  EXPECT_EQ(request_from_environment({}).force, SandboxMode::none);
  ::setenv("HONE_SANDBOX", "chroot", 1);
  EXPECT_THROW(request_from_environment({}), std::runtime_error);
  ::unsetenv("HONE_SANDBOX");
  EXPECT_FALSE(request_from_environment({}).force);
  EXPECT_THROW(Sandbox::create({.force = SandboxMode::namespaces, .confine_helper = "/nonexistent/hone-confine"}),
               std::runtime_error);
}

TEST(Wrap, RefusesAWorkingFolderOutsideTheView) {
  if (!detected_support().usable(SandboxMode::namespaces)) GTEST_SKIP() << "namespaces mode is not usable here";
  Tree t;
  Sandbox sb(SandboxMode::namespaces, false, detected_support());
  SandboxPolicy p;
  p.scratch = t.scratch;
  ProcessSpec spec;
  spec.argv = {"true"};
  spec.cwd = t.home;
  EXPECT_THROW(sb.wrap(spec, p), std::invalid_argument);
}

TEST(Wrap, AsRootGroupReadableFoldersWorkAndOwnerOnlyOnesAreRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "only meaningful when hone runs as root (candidates run as nobody)";
  const SandboxSupport& support = detected_support();
  if (!support.usable(SandboxMode::namespaces)) GTEST_SKIP() << "namespaces mode is not usable here";
  Tree t;
  namespace fs = std::filesystem;
  testing::write_text(t.root / "group" / "file.txt", "GROUP-OK\n");
  fs::permissions(t.root / "group", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  fs::permissions(t.root / "group" / "file.txt", fs::perms::owner_read | fs::perms::group_read);
  Sandbox sb(SandboxMode::namespaces, false, support);
  SandboxPolicy p;
  p.scratch = t.scratch;
  p.read_only = {t.root / "group"};
  ProcessSpec spec;
  spec.argv = {"cat", (t.root / "group" / "file.txt").string()};
  auto r = run_process(sb.wrap(spec, p));
  EXPECT_EQ(r.out, "GROUP-OK\n") << r.describe() << r.err;

  fs::permissions(t.root / "group", fs::perms::owner_all);
  try {
    sb.wrap(spec, p);
    FAIL() << "an owner-only folder was bound for the user nobody";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("mode 700"), std::string::npos) << e.what();
  }
}

TEST(Wrap, RefusesScratchFoldersThatExposeSystemOrSharedFolders) {
  if (!detected_support().usable(SandboxMode::namespaces)) GTEST_SKIP() << "namespaces mode is not usable here";
  Sandbox sb(SandboxMode::namespaces, false, detected_support());
  ProcessSpec spec;
  spec.argv = {"true"};
  for (const char* bad : {"/", "/tmp", "/usr/local", "/etc/hone", "/home"}) {
    SandboxPolicy p;
    p.scratch = bad;
    EXPECT_THROW(sb.wrap(spec, p), std::invalid_argument) << bad;
  }
  Tree t;
  SandboxPolicy p;
  p.scratch = t.scratch / "job-1";
  EXPECT_NO_THROW(sb.wrap(spec, p));
  EXPECT_TRUE(std::filesystem::is_directory(t.scratch / "job-1"));
}

TEST(Wrap, AsRootScratchIsHandedToTheSandboxUserWithoutFollowingLinks) {
  if (::geteuid() != 0) GTEST_SKIP() << "only meaningful when hone runs as root (candidates run as nobody)";
  if (!detected_support().usable(SandboxMode::namespaces)) GTEST_SKIP() << "namespaces mode is not usable here";
  namespace fs = std::filesystem;
  Tree t;
  testing::write_text(t.scratch / "sub" / "generated.cu", "x");
  testing::write_text(t.outside / "victim", "x");
  fs::create_symlink(t.outside, t.scratch / "sub" / "link-to-outside");
  Sandbox sb(SandboxMode::namespaces, false, detected_support());
  SandboxPolicy p;
  p.scratch = t.scratch;
  ProcessSpec spec;
  spec.argv = {"true"};
  sb.wrap(spec, p);
  auto owner = [](const fs::path& path) {
    struct stat st {};
    ::lstat(path.c_str(), &st);
    return st.st_uid;
  };
  EXPECT_EQ(owner(t.scratch), 65534u);
  EXPECT_EQ(owner(t.scratch / "sub" / "generated.cu"), 65534u);
  EXPECT_EQ(owner(t.scratch / "sub" / "link-to-outside"), 65534u);
  EXPECT_EQ(owner(t.outside), 0u);
  EXPECT_EQ(owner(t.outside / "victim"), 0u);
}

TEST(Wrap, UnconfinedModeKeepsTheCommandAndResults) {
  Sandbox none(SandboxMode::none, true, detected_support());
  SandboxPolicy p;
  p.scratch = "/tmp";
  ProcessSpec spec;
  spec.argv = {"true"};
  EXPECT_EQ(none.wrap(spec, p).argv, spec.argv);
  ProcessResult r;
  r.started = true;
  r.exit_code = 139;
  EXPECT_EQ(none.unwrap_result(r).exit_code, 139);
}

}  // namespace
}  // namespace hone::sandbox
