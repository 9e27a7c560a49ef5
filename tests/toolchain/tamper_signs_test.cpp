// Tamper signs (issue 13): real builds with nvcc and g++, then the ELF symbols of the kernel's own
// code. Honest kernels (the tasks' examples, both forms) have none; the adversarial suite's
// tamperers, which hot-patch their process's clocks, show their imports; a kernel that defines a
// CUDA entry point to interpose it shows the definition.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "toolchain/tamper_signs.h"
#include "toolchain_test_support.h"

namespace hone::toolchain::testing {
namespace {

using TamperSigns = ToolchainTest;

const std::filesystem::path kRepo = std::filesystem::path(HONE_TOOLCHAIN_TEST_DIR) / ".." / "..";

bool has(const std::vector<std::string>& signs, const std::string& sign) {
  return std::find(signs.begin(), signs.end(), sign) != signs.end();
}

std::string joined(const std::vector<std::string>& signs) {
  std::string out;
  for (const auto& s : signs) out += s + "; ";
  return out;
}

std::string text_of(const std::filesystem::path& file) {
  std::ifstream in(file);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Every raw-form C++ kernel of tasks/ and tests/adversarial/cpu: the ones that patch their process
// (they include tamper.h) show signs, and none but a self-described tamperer does (the suite's
// other cheats are wrong results; scribble_shared reads /proc/self/maps to find the judge's memory).
TEST_F(TamperSigns, CpuKernelsShowSignsExactlyWhenTheyTamper) {
  std::vector<std::filesystem::path> files;
  for (const char* dir : {"tasks", "tests/adversarial/cpu"})
    for (const auto& e : std::filesystem::directory_iterator(kRepo / dir))
      if (e.path().extension() == ".cpp" && e.path().filename().string().find("torch") == std::string::npos)
        files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 20u);
  int tamperers = 0;
  for (const auto& file : files) {
    BuildResult r = build(file);
    if (r.outcome != BuildOutcome::Built) continue;  // kernels that fail to build on purpose
    const std::string text = text_of(file);
    const bool patches = text.find("#include \"tamper.h\"") != std::string::npos;
    tamperers += patches;
    if (patches) {
      EXPECT_FALSE(r.report.tamper_signs.empty()) << file;
    }
    if (text.find("Tamperer") == std::string::npos) {
      EXPECT_TRUE(r.report.tamper_signs.empty()) << file << ": " << joined(r.report.tamper_signs);
    }
  }
  EXPECT_GE(tamperers, 4);
}

TEST_F(TamperSigns, TheCpuClockSlowerImportsWhatItPatchesWith) {
  BuildResult r = build(kRepo / "tests/adversarial/cpu/slow_clock.cpp");
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error;
  EXPECT_TRUE(has(r.report.tamper_signs, "imports mprotect")) << joined(r.report.tamper_signs);
  EXPECT_TRUE(has(r.report.tamper_signs, "imports dlsym")) << joined(r.report.tamper_signs);
}

TEST_F(TamperSigns, ARebindingKernelImportsThePythonCApi) {
  BuildResult r = build(kRepo / "tests/adversarial/cpu/rebind_reference.cpp");
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error;
  EXPECT_TRUE(has(r.report.tamper_signs, "imports dlsym")) << joined(r.report.tamper_signs);
}

TEST_F(TamperSigns, DefiningACudaEntryPointIsASign) {
  const auto kernel = write("interpose.cpp", R"(#include "hone.h"
extern "C" int cudaEventElapsedTime(float* ms, void*, void*) { *ms = 0.001f; return 0; }
void forward(hone::In<float> x, hone::Out<float> y, hone::Stream) {
  for (int64_t i = 0; i < x.numel(); ++i) y.data()[i] = x.data()[i] > 0 ? x.data()[i] : 0.0f;
}
)");
  write("interpose.py", "");
  BuildResult r = build(kernel);
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error;
  EXPECT_TRUE(has(r.report.tamper_signs, "defines cudaEventElapsedTime (interposing the process's own)"))
      << joined(r.report.tamper_signs);
}

TEST_F(TamperSigns, CudaKernelsAreScannedWithoutTheStaticRuntime) {
  HONE_REQUIRE_NVCC();
  // The static CUDA runtime in every CUDA library imports dlopen and dlsym itself: only nvcc's
  // host object (the kernel's own code) is read.
  for (const char* task : {"tasks/softmax.cu", "tasks/gemm_bias_relu.cu"}) {
    BuildResult r = build(kRepo / task);
    ASSERT_EQ(r.outcome, BuildOutcome::Built) << task << ": " << r.error;
    EXPECT_TRUE(r.report.tamper_signs.empty()) << task << ": " << joined(r.report.tamper_signs);
  }
  BuildResult honest = build(kRepo / "tasks/relu.cu");
  ASSERT_EQ(honest.outcome, BuildOutcome::Built) << honest.error;
  EXPECT_TRUE(honest.report.tamper_signs.empty()) << joined(honest.report.tamper_signs);
  const auto in_library = scan_tamper_signs(honest.library);
  EXPECT_TRUE(has(in_library, "imports dlsym")) << "the linked library holds the runtime's own imports: "
                                                << joined(in_library);
  BuildResult tamperer = build(kRepo / "tests/adversarial/cuda/slow_clock.cu");
  ASSERT_EQ(tamperer.outcome, BuildOutcome::Built) << tamperer.error;
  EXPECT_TRUE(has(tamperer.report.tamper_signs, "imports mprotect")) << joined(tamperer.report.tamper_signs);
}

TEST_F(TamperSigns, AFileThatIsNotElfCannotBeRead) {
  const auto text = write("not_elf.so", "hello");
  EXPECT_THROW(read_elf_symbols(text), std::runtime_error);
  const auto signs = scan_tamper_signs(text);
  ASSERT_EQ(signs.size(), 1u);
  EXPECT_NE(signs[0].find("could not be scanned"), std::string::npos) << signs[0];
}

}  // namespace
}  // namespace hone::toolchain::testing
