// Hostile kernel sources at build time: real g++ and nvcc run through each confinement mode with
// a build policy; includes and assembler directives that reach a secret outside the kernel's
// folder must fail without the secret appearing anywhere, while an honest kernel builds.
#include "sandbox/include_guard.h"
#include "sandbox_fixture.h"

namespace hone::sandbox::testing {
namespace {

struct Compiler {
  std::string name;  // g++ or nvcc
  std::string extension;
  std::vector<std::string> flags;
};

std::optional<fs::path> nvcc() {
  if (auto p = find_program("nvcc")) return p;
  if (fs::exists("/usr/local/cuda/bin/nvcc")) return fs::path("/usr/local/cuda/bin/nvcc");
  return std::nullopt;
}

class HostileBuild : public ModeTest {
 protected:
  // Compiles `source` (written into the kernel folder as k.<ext>) to scratch/k.so.
  ProcessResult compile(const Tree& t, const Compiler& c, const std::string& source) {
    const fs::path file = t.kernel / ("k" + c.extension);
    write_text(file, source);
    fs::path exe = c.name == "nvcc" ? *nvcc() : *find_program(c.name);
    SandboxPolicy policy = build_policy(t.kernel, t.scratch, {compiler_root(exe)});
    ProcessSpec spec;
    spec.argv = {exe.string()};
    spec.argv.insert(spec.argv.end(), c.flags.begin(), c.flags.end());
    spec.argv.insert(spec.argv.end(), {"-I", t.kernel.string(), "-o", (t.scratch / "k.so").string(), file.string()});
    spec.timeout = std::chrono::seconds(120);
    return sandbox().unwrap_result(run_process(sandbox().wrap(spec, policy)));
  }

  void expect_refused(const Tree& t, const Compiler& c, const std::string& source) {
    ProcessResult r = compile(t, c, source);
    EXPECT_FALSE(r.ok()) << "built a kernel that reads a secret:\n" << source;
    EXPECT_EQ(r.out.find("CANARY"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("CANARY"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(t.scratch / "k.so"));
    // The include guard refuses it before any compiler runs.
    EXPECT_FALSE(check_includes(t.kernel / ("k" + c.extension), source, t.kernel).empty()) << source;
  }
};

const Compiler kGxx{"g++", ".cpp", {"-shared", "-fPIC"}};
const Compiler kNvcc{"nvcc", ".cu", {"-arch=sm_90", "-shared", "-Xcompiler", "-fPIC"}};

const char* kHonestCpp = R"(#include "local.h"
extern "C" int forward(int x) { return twice(x); }
)";
const char* kHonestCu = R"(#include "local.h"
__global__ void k(float* y) { y[threadIdx.x] = twice(1); }
extern "C" void forward(float* y) { k<<<1, 32>>>(y); }
)";

TEST_P(HostileBuild, HonestKernelWithALocalHeaderBuilds) {
  Tree t;
  write_text(t.kernel / "local.h", "static inline __attribute__((unused)) int twice(int x) { return 2 * x; }\n");
  ProcessResult r = compile(t, kGxx, kHonestCpp);
  ASSERT_TRUE(r.ok()) << r.describe() << "\n" << r.err;
  EXPECT_TRUE(fs::exists(t.scratch / "k.so"));
  EXPECT_TRUE(check_includes(t.kernel / "k.cpp", kHonestCpp, t.kernel).empty());
}

TEST_P(HostileBuild, IncludesOfSecretsOutsideTheKernelFolderFail) {
  Tree t;
  const std::string canary = (t.home / ".ssh" / "id_rsa").string();
  expect_refused(t, kGxx, "#include \"" + canary + "\"\nint x;\n");
  expect_refused(t, kGxx, "#include \"../../home/.ssh/id_rsa\"\nint x;\n");
  expect_refused(t, kGxx, "#include \"../secret.txt\"\nint x;\n");
  expect_refused(t, kGxx, "#include </etc/shadow>\nint x;\n");
  fs::create_symlink(canary, t.kernel / "innocent.h");
  expect_refused(t, kGxx, "#include \"innocent.h\"\nint x;\n");
}

TEST_P(HostileBuild, AssemblerIncbinOfASecretFails) {
  Tree t;
  const std::string canary = (t.home / ".ssh" / "id_rsa").string();
  expect_refused(t, kGxx, "asm(\".section .rodata\\n.incbin \\\"" + canary + "\\\"\\n.text\");\nint x;\n");
}

TEST_P(HostileBuild, NvccBuildsAnHonestKernelAndRefusesASecret) {
  if (!nvcc()) GTEST_SKIP() << "nvcc is not installed here";
  Tree t;
  write_text(t.kernel / "local.h", "__host__ __device__ inline int twice(int x) { return 2 * x; }\n");
  ProcessResult r = compile(t, kNvcc, kHonestCu);
  ASSERT_TRUE(r.ok()) << r.describe() << "\n" << r.err;
  EXPECT_TRUE(fs::exists(t.scratch / "k.so"));
  fs::remove(t.scratch / "k.so");
  expect_refused(t, kNvcc, "#include \"" + (t.home / ".ssh" / "id_rsa").string() + "\"\n__global__ void k() {}\n");
}

INSTANTIATE_TEST_SUITE_P(Modes, HostileBuild, ::testing::Values(SandboxMode::bwrap, SandboxMode::namespaces),
                         mode_name);

// Control: unconfined, the same include does leak the secret into the compiler's output.
TEST(UnconfinedBuildControl, TheIncludeLeaksWithoutASandbox) {
  Tree t;
  write_text(t.kernel / "k.cpp", "#include \"" + (t.home / ".ssh" / "id_rsa").string() + "\"\n");
  ProcessSpec spec;
  spec.argv = {"g++", "-fsyntax-only", (t.kernel / "k.cpp").string()};
  ProcessResult r = run_process(spec);
  EXPECT_NE(r.err.find("CANARY-HOME-ID-RSA"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace hone::sandbox::testing
