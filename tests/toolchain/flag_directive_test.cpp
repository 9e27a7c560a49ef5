// tests/toolchain/flag_directive_test.cpp: a kernel's `// hone: flags=` line: parsed and checked
// per language, written by add_flag_directive (a line added or extended, the rest untouched), and
// honoured by real g++ and nvcc builds (the flags in the command; a refused flag is a compile error
// at its line; the same text builds to the same cache key whether its flags come from the line or
// from the caller as well).
#include <gtest/gtest.h>

#include <algorithm>

#include "toolchain/flag_directive.h"
#include "toolchain_test_support.h"

namespace hone::toolchain {
namespace {

const char* kRawCpu =
    "#include \"hone.h\"\n"
    "void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {\n"
    "  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i];\n"
    "}\n";

const char* kRawCuda =
    "#include \"hone.h\"\n"
    "__global__ void copy(const float* x, float* y, long n) {\n"
    "  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = x[i];\n"
    "}\n"
    "void forward(hone::In<float> x, hone::Out<float> out, hone::Stream s) {\n"
    "  copy<<<(x.numel() + 255) / 256, 256, 0, s>>>(x.data(), out.data(), x.numel());\n"
    "}\n";

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

TEST(FlagDirective, ParsesOneLineOfAcceptedFlags) {
  auto p = parse_flag_directive("#include \"hone.h\"\n  // hone: flags=-march=native  -ffast-math\nint x;\n", KernelLanguage::Cpp);
  EXPECT_TRUE(p.error.empty()) << p.error;
  ASSERT_TRUE(p.directive);
  EXPECT_EQ(p.directive->line, 2);
  EXPECT_EQ(p.directive->flags, (std::vector<std::string>{"-march=native", "-ffast-math"}));
  EXPECT_FALSE(parse_flag_directive(kRawCpu, KernelLanguage::Cpp).directive);
  auto cuda = parse_flag_directive("// hone: flags=-use_fast_math --extra-device-vectorization -maxrregcount=64\n",
                                   KernelLanguage::Cuda);
  EXPECT_TRUE(cuda.error.empty()) << cuda.error;
  ASSERT_TRUE(cuda.directive);
  EXPECT_EQ(cuda.directive->flags.size(), 3u);
}

TEST(FlagDirective, RefusesFlagsThatReachOutsideCodeGeneration) {
  for (const char* flag : {"-o", "/etc/passwd", "-I/", "-include", "-fplugin=x.so", "-fprofile-generate", "-B/tmp",
                           "-Wl,-rpath,/x", "-fdump-tree-all", "-save-temps", "-x"})
    EXPECT_NE(flag_refusal(flag, KernelLanguage::Cpp), "") << flag;
  for (const char* flag : {"-O2", "-Ofast", "-march=native", "-mavx2", "-ffast-math", "-fno-math-errno", "-funroll-loops",
                           "-DTILE=64"})
    EXPECT_EQ(flag_refusal(flag, KernelLanguage::Cpp), "") << flag;
  EXPECT_NE(flag_refusal("-march=native", KernelLanguage::Cuda), "");  // nvcc would not take it
  EXPECT_NE(flag_refusal("--output-file=x", KernelLanguage::Cuda), "");
  auto p = parse_flag_directive("int a;\n// hone: flags=-O3 -o /tmp/x\n", KernelLanguage::Cpp);
  EXPECT_EQ(p.error_line, 2);
  EXPECT_NE(p.error.find("`-o`"), std::string::npos) << p.error;
  auto twice = parse_flag_directive("// hone: flags=-O2\n// hone: flags=-O3\n", KernelLanguage::Cpp);
  EXPECT_EQ(twice.error_line, 2);
  EXPECT_NE(twice.error.find("second"), std::string::npos) << twice.error;
}

TEST(FlagDirective, AddsALineOrExtendsTheOneThere) {
  EXPECT_EQ(add_flag_directive(kRawCpu, {}), kRawCpu);
  std::string added = add_flag_directive(kRawCpu, {"-march=native", "-ffast-math"});
  EXPECT_EQ(added, std::string("// hone: flags=-march=native -ffast-math\n") + kRawCpu);
  std::string extended = add_flag_directive("int a;\r\n// hone: flags=-O2 -ffast-math\r\nint b;\r\n", {"-ffast-math", "-funroll-loops"});
  EXPECT_EQ(extended, "int a;\r\n// hone: flags=-O2 -ffast-math -funroll-loops\r\nint b;\r\n");
  EXPECT_EQ(merge_flags({"-O2", "-ffast-math"}, {"-ffast-math", "-march=native"}),
            (std::vector<std::string>{"-O2", "-ffast-math", "-march=native"}));
}

class FlagDirectiveBuild : public testing::ToolchainTest {};

TEST_F(FlagDirectiveBuild, TheHostCompilerGetsTheKernelsFlags) {
  const auto k = write("k.cpp", add_flag_directive(kRawCpu, {"-ffast-math", "-funroll-loops"}));
  BuildResult r = build(k);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(has(r.report.command, "-ffast-math"));
  EXPECT_TRUE(has(r.report.command, "-funroll-loops"));
  // The optimizer also passes the flags it tried: each appears once, so the key is the same.
  BuildRequest again;
  again.kernel = k;
  again.extra_flags = {"-funroll-loops"};
  BuildResult r2 = builder().build(again);
  ASSERT_TRUE(r2.ok()) << r2.error;
  EXPECT_EQ(r2.key, r.key);
  EXPECT_EQ(r2.report.command, r.report.command);
  EXPECT_EQ(std::count(r2.report.command.begin(), r2.report.command.end(), "-funroll-loops"), 1);
  // Without the line the same kernel is another build.
  BuildResult plain = build(write("k.cpp", kRawCpu));
  ASSERT_TRUE(plain.ok()) << plain.error;
  EXPECT_NE(plain.key, r.key);
  EXPECT_FALSE(has(plain.report.command, "-ffast-math"));
}

TEST_F(FlagDirectiveBuild, ARefusedFlagIsACompileErrorAtItsLine) {
  BuildResult r = build(write("bad.cpp", std::string(kRawCpu) + "// hone: flags=-O2 -o /tmp/elsewhere.so\n"));
  EXPECT_EQ(r.outcome, BuildOutcome::CompileError);
  ASSERT_EQ(r.report.diagnostics.size(), 1u);
  EXPECT_EQ(r.report.diagnostics[0].line, 5);
  EXPECT_NE(r.report.diagnostics[0].message.find("`-o`"), std::string::npos) << r.report.diagnostics[0].message;
}

TEST_F(FlagDirectiveBuild, NvccGetsTheKernelsFlags) {
  if (!have_nvcc()) GTEST_SKIP() << "no nvcc";
  BuildResult r = build(write("k.cu", add_flag_directive(kRawCuda, {"-use_fast_math"})));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_TRUE(has(r.report.command, "-use_fast_math"));
}

}  // namespace
}  // namespace hone::toolchain
