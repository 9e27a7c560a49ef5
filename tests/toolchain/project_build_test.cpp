// tests/toolchain/project_build_test.cpp: any .cu/.cuh file builds (issue 16): a file without
// hone's form gets nvcc's diagnostics at its own lines and its kernels' facts; a project's
// compile_commands.json (as CMake writes it, in a CMake-like layout: src/, include/, build/) is
// found walking up, its flags kept and its build-only flags dropped; a file without an entry
// borrows its neighbour's; a header builds through the source that includes it; PTX listings map
// lines to the source. Real nvcc.
#include <nlohmann/json.hpp>

#include "toolchain/compile_db.h"
#include "toolchain/machine_listing.h"
#include "toolchain_test_support.h"

namespace hone::toolchain::testing {
namespace {

namespace fs = std::filesystem;

class ProjectBuild : public ToolchainTest {
 protected:
  // A CMake-like project: src/scale.cu needs -I include and -DSCALE (it #errors without them),
  // include/proj/util.cuh is included by it, build/compile_commands.json as CMake's Ninja
  // generator writes it (a "command" string with -MD/-MT/-MF, -o, -c, --generate-code).
  fs::path make_project() {
    write("proj/include/proj/util.cuh",
          "#pragma once\n#ifndef SCALE\n#error SCALE must be defined by the project\n#endif\n"
          "__device__ inline float scaled(float v) { return v * SCALE; }\n");
    write("proj/src/scale.cu",
          "#include <proj/util.cuh>\n\n__global__ void scale_kernel(float* x, int n) {\n"
          "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] = scaled(x[i]);\n}\n");
    const fs::path src = dir_ / "proj" / "src" / "scale.cu";
    const fs::path build = dir_ / "proj" / "build";
    nlohmann::json db = nlohmann::json::array(
        {{{"directory", build.string()},
          {"command", "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DSCALE=3.0f -I" +
                          (dir_ / "proj" / "include").string() +
                          " --expt-relaxed-constexpr -O2 --generate-code=arch=compute_80,code=[compute_80,sm_80] -std=c++17 -MD -MT "
                          "CMakeFiles/scale.dir/src/scale.cu.o -MF CMakeFiles/scale.dir/src/scale.cu.o.d -x cu -c " +
                          src.string() + " -o CMakeFiles/scale.dir/src/scale.cu.o"},
          {"file", src.string()}}});
    write("proj/build/compile_commands.json", db.dump(2));
    return build / "compile_commands.json";
  }

  BuildResult plain_build(const fs::path& file, const std::optional<ProjectFlags>& flags) const {
    BuildRequest r;
    r.kernel = file;
    r.arch = "sm_90";
    if (flags) {
      r.project_flags = flags->flags;
      if (flags->includer) {
        r.includer = flags->includer->source;
        r.includer_line = flags->includer->line;
      }
    }
    return builder().build(r);
  }
};

TEST_F(ProjectBuild, SplitsCommandLinesAndKeepsOnlyWhatADiagnosticsBuildNeeds) {
  auto words = split_command_line(R"(nvcc -DNAME="a b" -I inc  -c x.cu)");
  ASSERT_EQ(words.size(), 6u);
  EXPECT_EQ(words[1], "-DNAME=a b");
  ProjectFlags f = filter_project_flags(
      {"nvcc", "-I", "inc", "-isystem=/sys/inc", "-DX=1", "--expt-relaxed-constexpr", "-rdc=true", "-arch=sm_80", "-gencode",
       "arch=compute_80,code=sm_80", "-MD", "-MF", "x.d", "-ccbin", "g++", "-c", "/p/x.cu", "-o", "x.o", "-std=c++17"},
      "/p/build", "/p/x.cu");
  const std::vector<std::string> kept{"-I", "/p/build/inc", "-isystem", "/sys/inc", "-DX=1", "--expt-relaxed-constexpr", "-rdc=true",
                                      "-std=c++17"};
  EXPECT_EQ(f.flags, kept);
  EXPECT_EQ(f.include_dirs, (std::vector<fs::path>{"/p/build/inc", "/sys/inc"}));
  for (const char* gone : {"-o", "x.o", "-c", "/p/x.cu", "-MF", "x.d", "-arch=sm_80", "-ccbin"})
    EXPECT_NE(std::find(f.dropped.begin(), f.dropped.end(), gone), f.dropped.end()) << gone;
  EXPECT_EQ(filter_project_flags({"nvcc", "-dc", "a.cu"}, "/p", "/p/a.cu").flags, std::vector<std::string>{"-rdc=true"});
}

TEST_F(ProjectBuild, FindsTheDatabaseWalkingUpAndPicksEntryNeighbourAndIncluder) {
  const fs::path db = make_project();
  write("proj/src/other.cu", "__global__ void other(float* x) { x[0] = SCALE; }\n");
  auto found = find_compile_database(dir_ / "proj" / "src" / "scale.cu");
  ASSERT_TRUE(found);
  EXPECT_EQ(*found, db);
  EXPECT_FALSE(find_compile_database(dir_ / "proj" / "src" / "scale.cu", dir_ / "nowhere"));
  EXPECT_EQ(*find_compile_database(dir_ / "elsewhere.cu", dir_ / "proj" / "build"), db);

  auto own = project_flags(db, dir_ / "proj" / "src" / "scale.cu");
  ASSERT_TRUE(own);
  EXPECT_EQ(own->how, "entry");
  EXPECT_NE(std::find(own->flags.begin(), own->flags.end(), "-DSCALE=3.0f"), own->flags.end());
  EXPECT_NE(std::find(own->flags.begin(), own->flags.end(), "--expt-relaxed-constexpr"), own->flags.end());
  for (const auto& f : own->flags) {
    EXPECT_EQ(f.find("generate-code"), std::string::npos);
    EXPECT_NE(f, "-c");
    EXPECT_EQ(f.find("scale.cu"), std::string::npos);
  }

  auto neighbour = project_flags(db, dir_ / "proj" / "src" / "other.cu");
  ASSERT_TRUE(neighbour);
  EXPECT_TRUE(neighbour->how.starts_with("nearest neighbour")) << neighbour->how;

  auto header = project_flags(db, dir_ / "proj" / "include" / "proj" / "util.cuh");
  ASSERT_TRUE(header);
  ASSERT_TRUE(header->includer) << header->how;
  EXPECT_EQ(header->includer->source, dir_ / "proj" / "src" / "scale.cu");
  EXPECT_EQ(header->includer->line, 1);
}

TEST_F(ProjectBuild, AFileWithoutFormGetsNvccDiagnosticsAtItsOwnLines) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
  const fs::path file = write("plain.cu",
                              "// an ordinary CUDA file: no hone.h, no forward\n#include <cstdio>\n\n"
                              "__global__ void k(float* x) {\n  x[threadIdx.x] = 1.0f;\n  int y = ;\n}\n");
  BuildResult r = plain_build(file, std::nullopt);
  EXPECT_EQ(r.outcome, BuildOutcome::CompileError);
  EXPECT_TRUE(r.plain);
  ASSERT_FALSE(r.report.diagnostics.empty());
  bool at_six = false;
  for (const auto& d : r.report.diagnostics) {
    EXPECT_EQ(d.message.find("cannot tell the kernel's form"), std::string::npos) << d.message;
    if (d.line == 6 && d.severity == protocol::Severity::Error && fs::path(d.file) == file) at_six = true;
  }
  EXPECT_TRUE(at_six) << nlohmann::json(r.report).dump(2);

  BuildRequest checked;
  checked.kernel = file;
  checked.arch = "sm_90";
  checked.require_form = true;
  BuildResult refused = builder().build(checked);
  ASSERT_EQ(refused.report.diagnostics.size(), 1u);
  EXPECT_NE(refused.report.diagnostics[0].message.find("cannot tell the kernel's form"), std::string::npos);
}

TEST_F(ProjectBuild, AProjectFileBuildsWithItsFlagsAndGetsFactsAndPtx) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
  const fs::path db = make_project();
  const fs::path src = dir_ / "proj" / "src" / "scale.cu";
  // Without the project's flags the include is not found: the error is at line 1 of the file.
  BuildResult alone = plain_build(src, std::nullopt);
  ASSERT_EQ(alone.outcome, BuildOutcome::CompileError);
  EXPECT_EQ(alone.report.diagnostics.at(0).line, 1);

  BuildResult r = plain_build(src, project_flags(db, src));
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << nlohmann::json(r.report).dump(2);
  EXPECT_TRUE(r.library.empty());
  ASSERT_EQ(r.report.kernels.size(), 1u);
  EXPECT_TRUE(r.report.kernels[0].registers);
  EXPECT_EQ(r.report.kernels[0].line, 3);
  ASSERT_TRUE(r.report.kernels[0].ptx);
  EXPECT_EQ(r.report.kernels[0].ptx->global_loads.at(32), 1);
  const fs::path ptx = build_ptx_path(dir_ / "cache", r.key);
  ASSERT_TRUE(fs::is_regular_file(ptx));

  // The PTX maps back to the source: the load and the store come from line 5.
  auto listings = ptx_listings(read_file(ptx));
  const FunctionListing* f = pick_listing(listings, "scale_kernel", src, 0);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "scale_kernel");
  bool load_at_five = false;
  for (const auto& l : f->lines)
    if (l.text.find("ld.global") != std::string::npos && l.line == 5 && fs::path(l.file) == src) load_at_five = true;
  EXPECT_TRUE(load_at_five);
  EXPECT_EQ(pick_listing(listings, "", src, 4), f);
}

TEST_F(ProjectBuild, AHeaderBuildsThroughItsIncluderWithoutFalseErrors) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
  const fs::path db = make_project();
  const fs::path header = dir_ / "proj" / "include" / "proj" / "util.cuh";
  BuildResult r = plain_build(header, project_flags(db, header));
  EXPECT_EQ(r.outcome, BuildOutcome::Built) << nlohmann::json(r.report).dump(2);
  EXPECT_EQ(r.report.count(protocol::Severity::Error), 0u);
  // On its own (no includer, no flags) its own #error fires at its own line.
  BuildResult alone = plain_build(header, std::nullopt);
  ASSERT_EQ(alone.outcome, BuildOutcome::CompileError);
  EXPECT_EQ(alone.report.diagnostics.at(0).line, 3);
  EXPECT_EQ(fs::path(alone.report.diagnostics.at(0).file), header);
}

TEST_F(ProjectBuild, AFineHeaderAloneBuildsWithoutPragmaOnceWarnings) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
  const fs::path header = write("lib.cuh", "#pragma once\ntemplate <int N>\n__device__ float twice(float v) { return N * v; }\n");
  BuildResult r = plain_build(header, std::nullopt);
  EXPECT_EQ(r.outcome, BuildOutcome::Built) << nlohmann::json(r.report).dump(2);
  EXPECT_TRUE(r.report.diagnostics.empty()) << nlohmann::json(r.report).dump(2);
}

}  // namespace
}  // namespace hone::toolchain::testing
