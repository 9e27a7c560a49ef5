// tests/profile/ptx_lines_test.cpp: suggestion source lines from PTX `.loc` directives, on PTX
// that the real nvcc (-lineinfo, no GPU needed) makes from a translation unit shaped like hone's
// (`#line 1 "<user path>"` before the source); and end to end through build_profile_report with
// the counters recorded on the H200 for a strided gather.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "fixture.h"
#include "profile/ptx_lines.h"
#include "profile/report.h"
#include "protocol/verdict_text.h"
#include "support/hash.h"

namespace hone::profile {
namespace {

namespace fs = std::filesystem;
using testing::run_shell;

// Compiles `source` (as the user's file `user_path`, including headers from `include_dir`) to PTX
// the way hone's build does; returns the PTX text, or fails the test with nvcc's output.
std::string ptx_of(const std::string& source, const std::string& user_path, const fs::path& dir, const std::string& include_dir) {
  fs::create_directories(dir);
  std::ofstream(dir / "tu.cu") << "#line 1 \"" << user_path << "\"\n" << source;
  std::string out;
  std::string cmd = std::string(HONE_PROFILE_NVCC) + " -ptx -lineinfo -O3 -arch=sm_90 -I'" + include_dir + "' '" + (dir / "tu.cu").string() +
                    "' -o '" + (dir / "tu.ptx").string() + "'";
  int rc = run_shell(cmd, "", out);
  EXPECT_EQ(rc, 0) << cmd << "\n" << out;
  return rc == 0 ? read_file(dir / "tu.ptx") : std::string();
}

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("hone-ptx-lines-" + std::to_string(::getpid()) + "-" + name);
}

#define REQUIRE_NVCC() \
  if (!fs::exists(HONE_PROFILE_NVCC)) GTEST_SKIP() << "nvcc not found (" << HONE_PROFILE_NVCC << ")"

// Lines are those of this text (line 1 = the #include).
constexpr const char* kAccesses = R"(#include "helper.cuh"
__global__ void access(const float* in, const float4* wide, float* out, int n) {
  __shared__ float tile[32][32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a = in[i];
  float4 w = wide[i];
  tile[threadIdx.x][0] = a + w.x + w.y + w.z + w.w;
  __syncthreads();
  float b = tile[0][threadIdx.x];
  float loc[32];
  for (int j = 0; j < 32; ++j) loc[j] = b * j + in[j];
  for (int j = 0; j < (threadIdx.x & 31); ++j) b += loc[(i + j) & 31];
  put(out, i, b);
}
)";

TEST(PtxLines, InstructionsOfEachKindLandOnTheirUserLines) {
  REQUIRE_NVCC();
  fs::path dir = scratch("kinds");
  fs::create_directories(dir);
  std::ofstream(dir / "helper.cuh") << "__device__ __forceinline__ void put(float* p, int i, float v) {\n  p[i] = v * 3.0f;\n}\n";
  const std::string user = "/work/user/access.cu";
  std::string ptx = ptx_of(kAccesses, user, dir, dir.string());
  ASSERT_FALSE(ptx.empty());
  PtxSourceLines lines = parse_ptx_source_lines(ptx, user);
  const std::string k = "_Z6accessPKfPK6float4Pfi";
  ASSERT_TRUE(lines.kernels.count(k)) << ptx;
  EXPECT_EQ(lines.lines(k, {AccessKind::GlobalLoad}), (std::vector<int>{5, 6, 11}));
  EXPECT_EQ(lines.lines(k, {AccessKind::GlobalLoad}, 32), (std::vector<int>{5, 11})) << "the float4 load is 128 bits wide";
  EXPECT_EQ(lines.lines(k, {AccessKind::GlobalStore}), (std::vector<int>{13}))
      << "the store inlined from helper.cuh is placed at its call site in the user's file";
  EXPECT_EQ(lines.lines(k, {AccessKind::SharedLoad, AccessKind::SharedStore}), (std::vector<int>{7, 9}));
  EXPECT_EQ(lines.lines(k, {AccessKind::LocalLoad, AccessKind::LocalStore}), (std::vector<int>{11, 12}));
  EXPECT_EQ(lines.lines(k, {AccessKind::DivergentBranch}), (std::vector<int>{12}));

  // Another file's name finds nothing: lines are only ever in the user's file.
  EXPECT_TRUE(parse_ptx_source_lines(ptx, "/work/user/other.cu").kernels.empty());
  EXPECT_TRUE(parse_ptx_source_lines("not ptx at all {", user).kernels.empty());
  fs::remove_all(dir);
}

TEST(PtxLines, RecordedGatherCountersPointAtTheLoadLineOfTheUsersFile) {
  REQUIRE_NVCC();
  // The gather hone profile ran on the H200 (tests/profile/gpu/strided_gather.cu), built here to
  // PTX as hone builds it; the counters are those recorded for cupti_gpu_tests' gather of the same
  // shape, attributed to this kernel.
  const fs::path user = fs::path(HONE_PROFILE_SOURCE_DIR) / "gpu" / "strided_gather.cu";
  fs::path dir = scratch("gather");
  std::string ptx = ptx_of(read_file(user), user.string(), dir, HONE_PROFILE_INCLUDE_DIR);
  ASSERT_FALSE(ptx.empty());
  std::ofstream(dir / "kernel.ptx") << ptx;

  auto f = testing::load_fixture("strided_gather");
  nlohmann::json& rec = f.json["candidate"]["activity"]["kernels"][0];
  rec["name"] = "strided_gather(float const*, float*, long)";
  rec["mangled"] = "_Z14strided_gatherPKfPfl";
  f.inputs.worker_result = f.json;
  f.inputs.own_kernels = {"strided_gather"};
  f.inputs.kernel_file = user.string();
  f.inputs.ptx = dir / "kernel.ptx";
  ProfileOutput built = build_profile_report(f.inputs);
  nlohmann::json rj = built.report;
  const nlohmann::json* s = nullptr;
  for (const nlohmann::json& x : rj["suggestions"])
    if (x["id"] == "uncoalesced_loads") s = &x;
  ASSERT_TRUE(s) << rj.dump(1);
  EXPECT_EQ((*s)["location"]["file"], user.string());
  EXPECT_EQ((*s)["location"]["scope"], "line");
  EXPECT_EQ((*s)["location"]["line"], 7) << "if (i < n) out[i] = x[i * 8];";
  EXPECT_EQ((*s)["location"]["lines"], nlohmann::json::array({7}));
  std::string text = protocol::profile_text(built.report);
  EXPECT_NE(text.find("at " + user.string() + ":7 in strided_gather"), std::string::npos) << text;

  // Without the PTX the suggestion has no line (no build report either): never a guessed one.
  f.inputs.ptx = dir / "missing.ptx";
  for (const nlohmann::json& x : nlohmann::json(build_profile_report(f.inputs).report)["suggestions"]) EXPECT_TRUE(x["location"].is_null()) << x.dump();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hone::profile
