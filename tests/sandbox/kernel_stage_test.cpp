// Staged kernel files: the include scan's closure, the staged copies (readable whatever the
// originals' modes), the staged build policy's binds, and real g++ builds through each mode of a
// kernel in a mode-700 folder that see its local headers and nothing else of that folder.
#include "sandbox/kernel_stage.h"

#include <sys/stat.h>

#include <algorithm>

#include "sandbox/include_guard.h"
#include "sandbox/view_plan.h"
#include "sandbox_fixture.h"
#include "support/hash.h"

namespace hone::sandbox::testing {
namespace {

std::vector<fs::path> paths_of(const IncludeScan& scan) {
  std::vector<fs::path> out;
  for (const auto& f : scan.files) out.push_back(f.path);
  return out;
}

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

// A kernel folder only its owner may enter, with headers only their owner may read (root's
// mktemp folder with umask 077), a sibling file the kernel never includes, and a dot-file.
struct PrivateKernel {
  Tree t;
  fs::path dir = t.ws / "private";
  PrivateKernel() {
    write_text(dir / "k.cpp", "");
    write_text(dir / "local.h", "#include \"sub/deep.h\"\nstatic inline int twice(int x) { return deep(x) * 2; }\n");
    write_text(dir / "sub" / "deep.h", "#include <angle.h>\nstatic inline int deep(int x) { return x + ANGLE; }\n");
    write_text(dir / "angle.h", "#define ANGLE 0\n");
    write_text(dir / "sibling.h", "#error the sibling was visible\n");
    write_text(dir / ".env", "CANARY-DOTENV\n");
    for (const char* f : {"k.cpp", "local.h", "sub/deep.h", "angle.h", "sibling.h", ".env"})
      fs::permissions(dir / f, fs::perms::owner_read | fs::perms::owner_write);
    fs::permissions(dir / "sub", fs::perms::owner_all);
    fs::permissions(dir, fs::perms::owner_all);
  }
};

const char* kKernel = R"(#include "local.h"
#if __has_include("sibling.h") || __has_include(".env")
#error the kernel's folder is visible beyond its headers
#endif
extern "C" int forward(int x) { return twice(x); }
)";

TEST(IncludeScan, WalksQuotedAngleAndFolderFallbackIncludesOnce) {
  PrivateKernel k;
  IncludeScan scan = scan_includes(k.dir / "k.cpp", kKernel, k.dir);
  EXPECT_TRUE(scan.violations.empty()) << format_violation(scan.violations.at(0));
  EXPECT_EQ(paths_of(scan), (std::vector<fs::path>{k.dir / "k.cpp", k.dir / "local.h", k.dir / "sub" / "deep.h",
                                                   k.dir / "angle.h"}));
  EXPECT_EQ(scan.files[0].contents, kKernel);
  EXPECT_EQ(scan.files[3].contents, "#define ANGLE 0\n");
}

TEST(IncludeScan, AnAngleIncludedLocalHeaderIsCheckedToo) {
  Tree t;
  write_text(t.kernel / "mine.h", "\n#include \"/etc/shadow\"\n");
  IncludeScan scan = scan_includes(t.kernel / "k.cu", "#include <mine.h>\n", t.kernel);
  ASSERT_EQ(scan.violations.size(), 1u);
  EXPECT_EQ(scan.violations[0].file, t.kernel / "mine.h");
  EXPECT_EQ(scan.violations[0].line, 2);
}

TEST(StageKernelFiles, CopiesAreReadableByAllAndSharedBetweenIdenticalSets) {
  PrivateKernel k;
  IncludeScan scan = scan_includes(k.dir / "k.cpp", kKernel, k.dir);
  scan.files.erase(scan.files.begin());
  StagedKernel a = stage_kernel_files(k.dir, scan.files, k.t.outside / "stage");
  EXPECT_EQ(a.files, (std::vector<fs::path>{"local.h", "sub/deep.h", "angle.h"}));
  EXPECT_EQ(mode_of(a.dir / "sub"), 0755u);
  for (const auto& f : a.files) {
    EXPECT_EQ(mode_of(a.dir / f), 0644u) << f;
    EXPECT_EQ(read_file(a.dir / f), read_file(k.dir / f)) << f;
  }
  EXPECT_FALSE(fs::exists(a.dir / "sibling.h"));
  StagedKernel b = stage_kernel_files(k.dir, scan.files, k.t.outside / "stage");
  EXPECT_EQ(a.dir, b.dir);
  EXPECT_EQ(std::distance(fs::directory_iterator(k.t.outside / "stage"), fs::directory_iterator()), 1);
  scan.files[0].contents += "// changed\n";
  EXPECT_NE(stage_kernel_files(k.dir, scan.files, k.t.outside / "stage").dir, a.dir);
}

TEST(StageKernelFiles, RefusesAFileOutsideTheKernelFolder) {
  Tree t;
  try {
    stage_kernel_files(t.kernel, {{t.ws / "secret.txt", "x"}}, t.outside / "stage");
    FAIL() << "a file outside the kernel's folder was staged";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("secret.txt"), std::string::npos) << e.what();
  }
}

TEST(StagedBuildPolicy, ShowsEachCopyAtItsPathAndNotTheFolder) {
  PrivateKernel k;
  IncludeScan scan = scan_includes(k.dir / "k.cpp", kKernel, k.dir);
  scan.files.erase(scan.files.begin());
  StagedKernel s = stage_kernel_files(k.dir, scan.files, k.t.outside / "stage");
  SandboxPolicy p = staged_build_policy(k.dir, s.dir, s.files, k.dir / "build", {"/usr"});
  fs::create_directories(k.dir / "build");
  auto steps = plan_view(p, {});
  for (const auto& f : s.files) {
    auto it = std::find_if(steps.begin(), steps.end(), [&](const ViewStep& v) { return v.dest == k.dir / f; });
    ASSERT_NE(it, steps.end()) << f;
    EXPECT_EQ(it->kind, ViewStep::Kind::ro_bind);
    EXPECT_EQ(it->source, s.dir / f);
  }
  EXPECT_TRUE(std::none_of(steps.begin(), steps.end(), [&](const ViewStep& v) { return v.dest == k.dir; }));
  EXPECT_FALSE(visible_in_view(steps, k.dir / "sibling.h"));
  EXPECT_TRUE(visible_in_view(steps, k.dir / "build"));
  EXPECT_THROW(staged_build_policy(k.dir, s.dir, {"../secret.txt"}, k.t.scratch, {}), std::invalid_argument);
}

class StagedBuild : public ModeTest {};

TEST_P(StagedBuild, KernelInAPrivateFolderBuildsSeeingOnlyItsHeaders) {
  PrivateKernel k;
  IncludeScan scan = scan_includes(k.dir / "k.cpp", kKernel, k.dir);
  ASSERT_TRUE(scan.violations.empty());
  scan.files.erase(scan.files.begin());
  StagedKernel s = stage_kernel_files(k.dir, scan.files, k.t.outside / "stage");
  // As the builder does: the kernel's text in the scratch folder, -I the kernel's folder.
  write_text(k.t.scratch / "tu.cpp", "#line 1 \"" + (k.dir / "k.cpp").string() + "\"\n" + kKernel);
  const fs::path gxx = *find_program("g++");
  ProcessSpec spec;
  spec.argv = {gxx.string(), "-shared", "-fPIC", "-I" + k.dir.string(), "tu.cpp", "-o", "k.so"};
  spec.cwd = k.t.scratch;
  spec.timeout = std::chrono::seconds(120);
  SandboxPolicy policy = staged_build_policy(k.dir, s.dir, s.files, k.t.scratch, {compiler_root(gxx)});
  ProcessResult r = sandbox().unwrap_result(run_process(sandbox().wrap(spec, policy)));
  ASSERT_TRUE(r.ok()) << r.describe() << "\n" << r.err;
  EXPECT_TRUE(fs::exists(k.t.scratch / "k.so"));

  // Control: with the whole folder shown, the sibling is visible and the same kernel fails.
  fs::remove(k.t.scratch / "k.so");
  SandboxPolicy whole = build_policy(k.dir, k.t.scratch, {compiler_root(gxx)});
  if (sandbox().sandbox_user()) {
    // As root, candidates run as nobody, who cannot enter the folder: showing it whole fails.
    EXPECT_THROW(sandbox().wrap(spec, whole), std::invalid_argument);
    return;
  }
  ProcessResult leak = sandbox().unwrap_result(run_process(sandbox().wrap(spec, whole)));
  EXPECT_FALSE(leak.ok());
  EXPECT_NE(leak.err.find("visible beyond its headers"), std::string::npos) << leak.err;
}

INSTANTIATE_TEST_SUITE_P(Modes, StagedBuild, ::testing::Values(SandboxMode::bwrap, SandboxMode::namespaces),
                         mode_name);

}  // namespace
}  // namespace hone::sandbox::testing
