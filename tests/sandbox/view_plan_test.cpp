// The view plan: links resolved and recreated, redundant binds skipped, masks, order, spelling.
#include "sandbox/view_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "sandbox_fixture.h"

namespace hone::sandbox {
namespace {

using testing::Tree;
using testing::write_text;
namespace fs = std::filesystem;

std::ptrdiff_t index_of(const std::vector<ViewStep>& steps, ViewStep::Kind kind, const fs::path& dest) {
  auto it =
      std::find_if(steps.begin(), steps.end(), [&](const ViewStep& s) { return s.kind == kind && s.dest == dest; });
  return it == steps.end() ? -1 : it - steps.begin();
}

TEST(ResolveLinks, FollowsRelativeAndAbsoluteLinks) {
  Tree t;
  fs::create_directories(t.root / "c");
  fs::create_symlink("b", t.root / "a");
  fs::create_symlink(t.root / "c", t.root / "b");
  ResolvedPath r = resolve_links(t.root / "a");
  EXPECT_EQ(r.real, t.root / "c");
  ASSERT_EQ(r.links.size(), 2u);
  EXPECT_EQ(r.links[0].first, t.root / "a");
  EXPECT_EQ(r.links[0].second, "b");
  EXPECT_EQ(r.links[1].first, t.root / "b");
}

TEST(ResolveLinks, RejectsRelativeMissingAndLoopingPaths) {
  Tree t;
  EXPECT_THROW(resolve_links("relative/path"), std::invalid_argument);
  EXPECT_THROW(resolve_links(t.root / "missing"), std::invalid_argument);
  fs::create_symlink(t.root / "loop", t.root / "loop");
  EXPECT_THROW(resolve_links(t.root / "loop"), std::invalid_argument);
}

TEST(PlanView, LinksOnTheWayAreRecreatedAndTheTargetBound) {
  Tree t;
  write_text(t.root / "real" / "lib.so", "x");
  fs::create_symlink(t.root / "real", t.root / "alias");
  SandboxPolicy p;
  p.scratch = t.scratch;
  p.read_only = {t.root / "alias" / "lib.so"};
  auto steps = plan_view(p, {});
  EXPECT_GE(index_of(steps, ViewStep::Kind::ro_bind, t.root / "real" / "lib.so"), 0);
  auto link = index_of(steps, ViewStep::Kind::symlink, t.root / "alias");
  ASSERT_GE(link, 0);
  EXPECT_EQ(steps[static_cast<std::size_t>(link)].source, t.root / "real");
  EXPECT_GE(index_of(steps, ViewStep::Kind::bind, t.scratch), 0);
}

TEST(PlanView, FoldersInsideBoundFoldersAreNotBoundTwice) {
  Tree t;
  SandboxPolicy p;
  p.scratch = t.scratch;
  p.read_only = {"/usr/include", t.kernel};
  auto steps = plan_view(p, {});
  EXPECT_GE(index_of(steps, ViewStep::Kind::ro_bind, "/usr"), 0);
  EXPECT_EQ(index_of(steps, ViewStep::Kind::ro_bind, "/usr/include"), -1);
  EXPECT_GE(index_of(steps, ViewStep::Kind::ro_bind, t.kernel), 0);
}

TEST(PlanView, MasksHideFoldersAndFilesAndParentsComeFirst) {
  Tree t;
  fs::create_directories(t.kernel / ".git");
  SandboxPolicy p;
  p.scratch = t.scratch;
  p.read_only = {t.kernel};
  p.hidden = {t.kernel / ".git", t.kernel / ".env"};
  auto steps = plan_view(p, {});
  auto bind = index_of(steps, ViewStep::Kind::ro_bind, t.kernel);
  auto mask = index_of(steps, ViewStep::Kind::tmpfs, t.kernel / ".git");
  auto remount = index_of(steps, ViewStep::Kind::remount_ro, t.kernel / ".git");
  auto file_mask = index_of(steps, ViewStep::Kind::ro_bind, t.kernel / ".env");
  ASSERT_GE(bind, 0);
  EXPECT_GT(mask, bind);
  EXPECT_GT(remount, mask);
  EXPECT_GT(file_mask, bind);
  EXPECT_EQ(steps[static_cast<std::size_t>(file_mask)].source, "/dev/null");
  EXPECT_LT(index_of(steps, ViewStep::Kind::tmpfs, "/tmp"), index_of(steps, ViewStep::Kind::bind, t.scratch));
  EXPECT_EQ(steps.back().kind, ViewStep::Kind::remount_ro);
  EXPECT_EQ(steps.back().dest, "/");
}

TEST(PlanView, SpelledAsBwrapOptions) {
  Tree t;
  SandboxPolicy p;
  p.scratch = t.scratch;
  p.limits.tmp_bytes = 4096;
  auto args = view_arguments(plan_view(p, {}));
  auto at = std::find(args.begin(), args.end(), "/tmp");
  ASSERT_NE(at, args.end());
  std::vector<std::string> before(at - 5, at + 1);
  EXPECT_EQ(before, (std::vector<std::string>{"--perms", "1777", "--size", "4096", "--tmpfs", "/tmp"}));
  EXPECT_NE(std::find(args.begin(), args.end(), "--proc"), args.end());
}

TEST(PlanView, BadPoliciesAreRefusedWithThePath) {
  Tree t;
  SandboxPolicy p;
  p.scratch = "relative";
  EXPECT_THROW(plan_view(p, {}), std::invalid_argument);
  p.scratch = t.scratch;
  p.read_only = {t.root / "no-such-folder"};
  try {
    plan_view(p, {});
    FAIL() << "a missing read-only path was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-folder"), std::string::npos) << e.what();
  }
}

TEST(GpuDeviceNodes, FindsNvidiaNodesAndDri) {
  Tree t;
  for (const char* n : {"nvidia0", "nvidiactl", "nvidia-uvm", "sda", "null"}) write_text(t.root / "dev" / n, "");
  fs::create_directories(t.root / "dev" / "dri");
  fs::create_directories(t.root / "dev" / "nvidia-caps");
  auto nodes = gpu_device_nodes(t.root / "dev");
  std::vector<fs::path> names;
  for (const auto& n : nodes) names.push_back(n.filename());
  EXPECT_EQ(names, (std::vector<fs::path>{"dri", "nvidia-caps", "nvidia-uvm", "nvidia0", "nvidiactl"}));
}

}  // namespace
}  // namespace hone::sandbox
