// Diagnostics from real nvcc, ptxas, g++ and ld runs, placed in the user's file and lines even
// though hone compiles a generated translation unit; and every error path of a build.
#include <gtest/gtest.h>

#include <algorithm>

#include "toolchain_test_support.h"

namespace hone::toolchain::testing {
namespace {

using protocol::Diagnostic;
using protocol::DiagnosticSource;
using protocol::Severity;

using Diagnostics = ToolchainTest;
using BuildErrors = ToolchainTest;

const Diagnostic* find(const BuildResult& r, const std::string& text) {
  for (const auto& d : r.report.diagnostics)
    if (d.message.find(text) != std::string::npos) return &d;
  return nullptr;
}

std::string dump(const BuildResult& r) {
  std::string s = "outcome " + std::string(to_string(r.outcome)) + " " + r.error + "\n";
  for (const auto& d : r.report.diagnostics)
    s += d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message + "\n";
  return s;
}

TEST_F(Diagnostics, NvccErrorsAndWarningWithUserLinesAndColumns) {
  HONE_REQUIRE_NVCC();
  auto path = write("bad.cu", R"(#include "hone.h"

__global__ void k(float* y) {
  int fine = 3;
  y[0] = nope + fine;
	int q = "str";
}
void forward(hone::Out<float> y, hone::Stream s) {
  k<<<1, 32, 0, s>>>(y.data())
}
)");
  BuildResult r = build(path);
  EXPECT_EQ(r.outcome, BuildOutcome::CompileError) << dump(r);
  EXPECT_FALSE(r.report.ok);
  EXPECT_TRUE(r.library.empty());

  const Diagnostic* undefined = find(r, "identifier \"nope\" is undefined");
  ASSERT_NE(undefined, nullptr) << dump(r);
  EXPECT_EQ(undefined->file, path.string());
  EXPECT_EQ(undefined->line, 5);
  EXPECT_EQ(undefined->column, 10);
  EXPECT_EQ(undefined->severity, Severity::Error);
  EXPECT_EQ(undefined->source, DiagnosticSource::Nvcc);

  const Diagnostic* init = find(r, "cannot be used to initialize");
  ASSERT_NE(init, nullptr) << dump(r);
  EXPECT_EQ(init->line, 6);
  EXPECT_EQ(init->column, 10) << "a tab counts as one column";

  const Diagnostic* semi = find(r, "expected a \";\"");
  ASSERT_NE(semi, nullptr) << dump(r);
  EXPECT_EQ(semi->line, 10);

  EXPECT_EQ(r.report.count(Severity::Error), 3u) << dump(r);
}

TEST_F(Diagnostics, WarningsOfASuccessfulBuildAreKept) {
  HONE_REQUIRE_NVCC();
  auto path = write("warn.cu", R"(#include "hone.h"
__global__ void k(float* y) {
  int unused = 3;
  y[0] = 1;
}
void forward(hone::Out<float> y, hone::Stream s) { k<<<1, 32, 0, s>>>(y.data()); }
)");
  BuildResult r = build(path);
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << dump(r);
  const Diagnostic* warning = find(r, "\"unused\" was declared but never referenced");
  ASSERT_NE(warning, nullptr) << dump(r);
  EXPECT_EQ(warning->severity, Severity::Warning);
  EXPECT_EQ(warning->file, path.string());
  EXPECT_EQ(warning->line, 3);
  EXPECT_EQ(warning->column, 7);
  EXPECT_EQ(r.report.count(Severity::Error), 0u);
}

TEST_F(Diagnostics, ErrorInLocalHeaderPointsAtTheHeader) {
  HONE_REQUIRE_NVCC();
  auto header = write("k/inc/math.h", "#pragma once\n\ninline __device__ float twice(float x) { return x * undefined_scale; }\n");
  auto path = write("k/kern.cu",
                    "#include \"hone.h\"\n#include \"inc/math.h\"\n__global__ void k(float* y) { y[0] = twice(y[0]); }\n"
                    "void forward(hone::Out<float> y, hone::Stream s) { k<<<1, 1, 0, s>>>(y.data()); }\n");
  BuildResult r = build(path);
  const Diagnostic* d = find(r, "undefined_scale");
  ASSERT_NE(d, nullptr) << dump(r);
  EXPECT_EQ(d->file, header.string());
  EXPECT_EQ(d->line, 3);
  EXPECT_EQ(d->column, 53) << "EDG echoes the line with __device__ expanded; the column is in the line as written";
}

TEST_F(Diagnostics, HostCompilerErrorsAndWarningsForCppKernel) {
  auto path = write("cpu.cpp", R"(#include "hone.h"
int no_return(int x) { if (x) return 1; }
void forward(hone::In<float> x, hone::Out<float> y, hone::Stream) {
  for (long i = 0; i < x.numel(); ++i) y.data()[i] = x.data()[i] + missing_value;
}
)");
  BuildResult r = build(path);
  EXPECT_EQ(r.outcome, BuildOutcome::CompileError) << dump(r);
  const Diagnostic* e = find(r, "missing_value");
  ASSERT_NE(e, nullptr) << dump(r);
  EXPECT_EQ(e->file, path.string());
  EXPECT_EQ(e->line, 4);
  EXPECT_EQ(e->column, 68);
  EXPECT_EQ(e->source, DiagnosticSource::Host);
  const Diagnostic* w = find(r, "control reaches end of non-void function");
  ASSERT_NE(w, nullptr) << dump(r);
  EXPECT_EQ(w->severity, Severity::Warning);
  EXPECT_EQ(w->line, 2);
}

TEST_F(Diagnostics, NvccColumnAfterNonAsciiTextInAStringIsInBytes) {
  HONE_REQUIRE_NVCC();
  const std::string bad_line = "  printf(\"Gr\u00f6\u00dfe \u2013 \U0001F600: %d\\n\", undefined_n);";
  auto path = write("utf8.cu", "#include \"hone.h\"\n#include <cstdio>\n__global__ void k(float* y) {\n" + bad_line +
                                   "\n}\nvoid forward(hone::Out<float> y, hone::Stream s) { k<<<1, 1, 0, s>>>(y.data()); }\n");
  BuildResult r = build(path);
  const Diagnostic* d = find(r, "\"undefined_n\" is undefined");
  ASSERT_NE(d, nullptr) << dump(r);
  EXPECT_EQ(d->line, 4);
  EXPECT_EQ(d->column, static_cast<int>(bad_line.find("undefined_n")) + 1)
      << "EDG's caret counts characters; the report's column is a byte column";
}

TEST_F(Diagnostics, HostCompilerErrorsInAFolderWithASpaceKeepTheirLines) {
  auto cpp = write("my project/cpu.cpp", "#include \"hone.h\"\nvoid forward(hone::In<float> x, hone::Out<float> y, hone::Stream) {}\n"
                                         "#error stop here\n");
  BuildResult r = build(cpp);
  const Diagnostic* e = find(r, "stop here");
  ASSERT_NE(e, nullptr) << dump(r);
  EXPECT_EQ(e->file, cpp.string());
  EXPECT_EQ(e->line, 3);
  EXPECT_EQ(e->source, DiagnosticSource::Host);
  if (!have_nvcc()) return;
  auto cu = write("my project/k.cu", "#include \"hone.h\"\n#include \"does_not_exist.h\"\n"
                                     "void forward(hone::Out<float> y, hone::Stream) {}\n");
  r = build(cu);
  const Diagnostic* missing = find(r, "does_not_exist.h");
  ASSERT_NE(missing, nullptr) << dump(r);
  EXPECT_EQ(missing->file, cu.string());
  EXPECT_EQ(missing->line, 2);
  EXPECT_EQ(missing->column, 10);
}

TEST_F(Diagnostics, WrongForwardSignaturePointsAtForward) {
  // forward returns a value in the raw form: the static_assert fires inside hone's entry header,
  // and the diagnostic is moved to the user's forward.
  auto path = write("sig.cpp", "#include \"hone.h\"\n\nint forward(hone::In<float> x) { return 0; }\n");
  BuildResult r = build(path);
  EXPECT_EQ(r.outcome, BuildOutcome::CompileError);
  const Diagnostic* d = find(r, "forward must return void");
  ASSERT_NE(d, nullptr) << dump(r);
  EXPECT_EQ(d->file, path.string());
  EXPECT_EQ(d->line, 3);
  EXPECT_NE(d->message.find("hone's entry"), std::string::npos);
}

TEST_F(Diagnostics, PtxasErrorPointsAtTheKernel) {
  HONE_REQUIRE_NVCC();
  auto path = write("smem.cu", R"(#include "hone.h"
__global__ void small(float* y) { y[0] = 1; }

__global__ void too_big(float* y) {
  __shared__ float tile[16384];
  tile[threadIdx.x] = y[threadIdx.x];
  __syncthreads();
  y[threadIdx.x] = tile[threadIdx.x ^ 1];
}
void forward(hone::Out<float> y, hone::Stream s) { too_big<<<1, 32, 0, s>>>(y.data()); small<<<1, 1, 0, s>>>(y.data()); }
)");
  BuildResult r = build(path);
  EXPECT_EQ(r.outcome, BuildOutcome::CompileError) << dump(r);
  const Diagnostic* d = find(r, "too much shared data");
  ASSERT_NE(d, nullptr) << dump(r);
  EXPECT_EQ(d->source, DiagnosticSource::Ptxas);
  EXPECT_EQ(d->file, path.string());
  EXPECT_EQ(d->line, 4);
  EXPECT_NE(d->message.find("too_big(float*)"), std::string::npos) << "the mangled name is demangled: " << d->message;
}

TEST_F(Diagnostics, LinkErrorPointsAtTheUse) {
  HONE_REQUIRE_NVCC();
  auto path = write("link.cu", R"(#include "hone.h"
void helper_not_defined(int);
__global__ void k(float* y) { y[0] = 1; }
void forward(hone::Out<float> y, hone::Stream s) {
  k<<<1, 1, 0, s>>>(y.data());
  helper_not_defined(3);
}
)");
  BuildResult r = build(path);
  EXPECT_EQ(r.outcome, BuildOutcome::CompileError) << dump(r);
  const Diagnostic* d = find(r, "undefined reference to `helper_not_defined(int)'");
  ASSERT_NE(d, nullptr) << dump(r);
  EXPECT_EQ(d->source, DiagnosticSource::Linker);
  EXPECT_EQ(d->line, 6);
  EXPECT_EQ(d->column, 3);
}

TEST_F(BuildErrors, MissingFileAndUnknownExtension) {
  BuildResult missing = build(dir_ / "nope.cu");
  EXPECT_EQ(missing.outcome, BuildOutcome::BadInput);
  EXPECT_NE(missing.error.find("no such file"), std::string::npos);

  BuildResult ext = build(write("kernel.py", "print(1)\n"));
  EXPECT_EQ(ext.outcome, BuildOutcome::BadInput);
  EXPECT_NE(ext.error.find("unknown kernel file type '.py'"), std::string::npos) << ext.error;

  BuildRequest r;
  r.kernel = write("k.cu", "#include \"hone.h\"\nvoid forward(hone::Out<float>) {}\n");
  r.arch = "gfx90a";
  EXPECT_EQ(builder().build(r).outcome, BuildOutcome::BadInput);
  r.arch = "sm_90";
  r.device = BuildDevice::Cpu;
  BuildResult mismatch = builder().build(r);
  EXPECT_EQ(mismatch.outcome, BuildOutcome::BadInput);
  EXPECT_NE(mismatch.error.find(".cpp"), std::string::npos) << mismatch.error;
}

TEST_F(BuildErrors, NoFormAndNoForwardAreCompileErrorsAtLineOne) {
  // A check needs a library (require_form): without hone's form the file is a compile error.
  BuildRequest checked;
  checked.kernel = write("plain.cpp", "#include <vector>\nvoid forward() {}\n");
  checked.require_form = true;
  BuildResult no_form = builder().build(checked);
  EXPECT_EQ(no_form.outcome, BuildOutcome::CompileError);
  ASSERT_EQ(no_form.report.diagnostics.size(), 1u);
  EXPECT_EQ(no_form.report.diagnostics[0].line, 1);
  EXPECT_EQ(no_form.report.diagnostics[0].source, DiagnosticSource::Hone);

  BuildResult no_forward = build(write("nf.cu", "#include \"hone.h\"\n__global__ void k() {}\nvoid run() {}\n"));
  EXPECT_EQ(no_forward.outcome, BuildOutcome::CompileError);
  ASSERT_EQ(no_forward.report.diagnostics.size(), 1u);
  EXPECT_NE(no_forward.report.diagnostics[0].message.find("no forward function"), std::string::npos);

  // hone build and the editor build it anyway, plain: an object for diagnostics and facts, no library.
  BuildResult plain = build(checked.kernel);
  EXPECT_EQ(plain.outcome, BuildOutcome::Built) << nlohmann::json(plain.report).dump(2);
  EXPECT_TRUE(plain.plain);
  EXPECT_TRUE(plain.library.empty());
}

TEST_F(BuildErrors, NvccNotFound) {
  auto path = write("k.cu", "#include \"hone.h\"\nvoid forward(hone::Out<float>) {}\n");
  {
    ScopedEnv nvcc("HONE_NVCC", (dir_ / "no-such-nvcc").c_str());
    BuildResult r = build(path);
    EXPECT_EQ(r.outcome, BuildOutcome::MissingTool);
    EXPECT_NE(r.error.find("HONE_NVCC"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("install the CUDA toolkit"), std::string::npos) << r.error;
  }
  {
    ScopedEnv nvcc("HONE_NVCC", nullptr);
    ScopedEnv home("CUDA_HOME", dir_.c_str());
    BuildResult r = build(path);
    EXPECT_EQ(r.outcome, BuildOutcome::MissingTool);
    EXPECT_NE(r.error.find("CUDA_HOME=" + dir_.string() + " has no bin/nvcc"), std::string::npos) << r.error;
  }
}

TEST_F(BuildErrors, CompilerTimeoutKillsTheCommandAndIsNotCached) {
  // The wrap hook (the sandbox's seam) makes the compiler command slow: a shell that sleeps, with
  // a grandchild, before it execs the real compiler. The deadline must end the whole group.
  auto path = write("slow.cpp", "#include \"hone.h\"\nvoid forward(hone::Out<float>) {}\n");
  BuildRequest r;
  r.kernel = path;
  r.timeout = std::chrono::seconds(1);
  r.wrap_command = [](ProcessSpec spec) {
    std::vector<std::string> argv{"sh", "-c", "sleep 30 & sleep 30; exec \"$@\"", "sh"};
    argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
    spec.argv = argv;
    return spec;
  };
  BuildResult slow = builder().build(r);
  EXPECT_EQ(slow.outcome, BuildOutcome::TimedOut) << dump(slow);
  EXPECT_LT(slow.seconds, 10.0);
  EXPECT_NE(slow.error.find("timed out after 1 s"), std::string::npos) << slow.error;
  ASSERT_FALSE(slow.report.diagnostics.empty());

  r.wrap_command = nullptr;
  r.timeout = std::chrono::seconds(300);
  BuildResult ok = builder().build(r);
  EXPECT_EQ(ok.outcome, BuildOutcome::Built) << dump(ok);
  EXPECT_FALSE(ok.cached) << "a timed-out build must not be cached";
}

TEST_F(BuildErrors, StopTokenCancelsARunningCompile) {
  auto path = write("cancel.cpp", "#include \"hone.h\"\nvoid forward(hone::Out<float>) {}\n");
  std::stop_source stop;
  BuildRequest r;
  r.kernel = path;
  r.stop = stop.get_token();
  r.wrap_command = [&stop](ProcessSpec spec) {
    std::vector<std::string> argv{"sh", "-c", "sleep 30; exec \"$@\"", "sh"};
    argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
    spec.argv = argv;
    std::thread([stop]() mutable {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      stop.request_stop();
    }).detach();
    return spec;
  };
  BuildResult res = builder().build(r);
  EXPECT_EQ(res.outcome, BuildOutcome::Cancelled);
  EXPECT_LT(res.seconds, 10.0);
}

}  // namespace
}  // namespace hone::toolchain::testing
