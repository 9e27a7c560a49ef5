// tests/engine/engine_sandbox_test.cpp: the engine's side of confinement, with real g++ builds
// and (for the verdict) the real worker under /usr/bin/python3: an include of a secret outside the
// kernel's folder is a compile error at its line before any compiler runs; a kernel in a mode-700
// folder builds, seeing its local headers and nothing else of that folder; sandbox failures are
// environment errors; a raw-form build never starts the torch probe.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "sandbox/sandbox.h"
#include "support/hash.h"

namespace hone {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const fs::path kCases = HONE_EVAL_CASES;

const char* kRelu = R"(#include "hone.h"
#include "helper.h"
#if __has_include("sibling.h")
#error the kernel's folder is visible beyond its headers
#endif

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = relu(x.data()[i]);
}
)";

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// A folder only its owner may enter (as `mktemp -d` makes), removed at the end.
struct PrivateDir {
  fs::path path;
  PrivateDir() {
    std::string tmpl = (fs::temp_directory_path() / "hone-engine-sandbox-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
    fs::permissions(path, fs::perms::owner_all);
  }
  ~PrivateDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

class EngineSandbox : public ::testing::Test {
 protected:
  void SetUp() override {
    mode_ = sandbox::Sandbox::create({}).mode();
    if (mode_ == sandbox::SandboxMode::none)
      GTEST_SKIP() << "no sandbox works here: " << sandbox::detect_support().describe();
  }
  sandbox::SandboxMode mode_ = sandbox::SandboxMode::none;
};

EngineOptions cpu_options() {
  EngineOptions o;
  o.device = DeviceKind::Cpu;
  o.check_timeout = 120s;
  return o;
}

TEST_F(EngineSandbox, IncludeOfASecretIsACompileErrorAtItsLine) {
  PrivateDir d;
  const fs::path kernel = d.path / "k.cpp";
  write_text(kernel, "#include \"hone.h\"\n// reads a secret\n  #include \"/etc/shadow\"\n");
  write_text(d.path / "helper.h", "#include \"../../root/.ssh/id_rsa\"\n");
  Engine engine(cpu_options());
  protocol::BuildReport b = engine.build(BuildRequest{{kernel, std::nullopt}, {}});
  EXPECT_FALSE(b.compile.ok);
  ASSERT_EQ(b.compile.diagnostics.size(), 1u);
  const auto& diag = b.compile.diagnostics[0];
  EXPECT_EQ(diag.file, kernel.string());
  EXPECT_EQ(diag.line, 3);
  EXPECT_EQ(diag.column, 3);
  EXPECT_NE(diag.message.find("absolute path"), std::string::npos) << diag.message;
  EXPECT_TRUE(b.compile.command.empty()) << "a compiler ran on a refused kernel";
  EXPECT_EQ(b.kernel_hash.size(), 64u);

  // An unsaved buffer that includes a local header reaching out: the header's line.
  const std::string buffer = "#include \"hone.h\"\n#include \"helper.h\"\n";
  b = engine.build(BuildRequest{{kernel, buffer}, {}});
  ASSERT_EQ(b.compile.diagnostics.size(), 1u);
  EXPECT_EQ(b.compile.diagnostics[0].file, (d.path / "helper.h").string());
  EXPECT_EQ(b.compile.diagnostics[0].line, 1);
}

TEST_F(EngineSandbox, RefusedIncludeIsACompileErrorVerdict) {
  PrivateDir d;
  const fs::path kernel = d.path / "k.cpp";
  write_text(kernel, "#include \"hone.h\"\n\n\n#include \"" + (fs::path(::getenv("HOME")) / ".ssh/id_rsa").string() +
                         "\"\nvoid forward(hone::In<float> x, hone::Out<float> out, hone::Stream) {}\n");
  Engine engine(cpu_options());
  CheckRequest r;
  r.kernel.path = kernel;
  r.task = kCases / "relu_small.py";
  protocol::Verdict v = engine.check(r);
  EXPECT_EQ(v.status, protocol::Status::CompileError);
  ASSERT_TRUE(v.reason);
  EXPECT_EQ(v.reason->rfind(kernel.string() + ":4:1: ", 0), 0u) << *v.reason;
  EXPECT_NE(v.reason->find("kernel's folder"), std::string::npos) << *v.reason;
  EXPECT_EQ(v.sandbox.mode, std::string(sandbox::to_string(mode_)));
}

TEST_F(EngineSandbox, KernelInAPrivateFolderBuildsAndPassesSeeingOnlyItsHeaders) {
  PrivateDir d;
  const fs::path kernel = d.path / "relu.cpp";
  write_text(kernel, kRelu);
  write_text(d.path / "helper.h", "#include \"inc/max.h\"\nstatic inline float relu(float v) { return max0(v); }\n");
  write_text(d.path / "inc" / "max.h", "static inline float max0(float v) { return v > 0.f ? v : 0.f; }\n");
  write_text(d.path / "sibling.h", "int sibling;\n");
  for (const char* f : {"relu.cpp", "helper.h", "inc/max.h", "sibling.h"})
    fs::permissions(d.path / f, fs::perms::owner_read | fs::perms::owner_write);
  fs::permissions(d.path / "inc", fs::perms::owner_all);

  Engine engine(cpu_options());
  CheckRequest r;
  r.kernel.path = kernel;
  r.task = kCases / "relu_small.py";
  r.timing = false;
  protocol::Verdict v = engine.check(r);
  ASSERT_EQ(v.status, protocol::Status::Correct) << (v.reason ? *v.reason : "") << "\n"
                                                 << (v.compile.diagnostics.empty() ? "" : v.compile.diagnostics[0].message);
  EXPECT_EQ(v.sandbox.mode, std::string(sandbox::to_string(mode_)));
}

TEST_F(EngineSandbox, SandboxFailuresAreEnvironmentErrors) {
  PrivateDir d;
  write_text(d.path / "k.cpp", kRelu);
  write_text(d.path / "helper.h", "static inline float relu(float v) { return v; }\n");
  {
    // An unknown forced mode.
    ::setenv("HONE_SANDBOX", "chroot", 1);
    Engine engine(cpu_options());
    try {
      engine.build(BuildRequest{{d.path / "k.cpp", std::nullopt}, {}});
      ADD_FAILURE() << "HONE_SANDBOX=chroot was accepted";
    } catch (const EngineError& e) {
      EXPECT_EQ(e.kind(), EngineError::Kind::Environment) << e.what();
      EXPECT_NE(std::string(e.what()).find("HONE_SANDBOX=chroot"), std::string::npos) << e.what();
    }
    ::unsetenv("HONE_SANDBOX");
  }
  {
    // The headers cannot be staged (the cache folder cannot exist).
    Engine engine(cpu_options());
    const char* old = ::getenv("HONE_CACHE_DIR");
    const std::string saved = old ? old : "";
    ::setenv("HONE_CACHE_DIR", "/dev/null/hone-cache", 1);
    try {
      engine.build(BuildRequest{{d.path / "k.cpp", std::nullopt}, {}});
      ADD_FAILURE() << "a build without a cache folder went ahead";
    } catch (const EngineError& e) {
      EXPECT_EQ(e.kind(), EngineError::Kind::Environment) << e.what();
      EXPECT_NE(std::string(e.what()).find("sandbox: "), std::string::npos) << e.what();
    }
    if (old) ::setenv("HONE_CACHE_DIR", saved.c_str(), 1);
    else ::unsetenv("HONE_CACHE_DIR");
  }
}

// The interpreter is a script that notes each start: a raw-form build must not start it, a
// torch-form build must (the control).
TEST_F(EngineSandbox, RawFormBuildsNeverProbeTorch) {
  PrivateDir d;
  const fs::path log = d.path / "python-starts.log";
  const fs::path python = d.path / "python3";
  write_text(python, "#!/bin/sh\necho started >> '" + log.string() + "'\nexit 1\n");
  fs::permissions(python, fs::perms::owner_all);
  write_text(d.path / "k.cpp", kRelu);
  write_text(d.path / "helper.h", "static inline float relu(float v) { return v > 0.f ? v : 0.f; }\n");
  EngineOptions o = cpu_options();
  o.python = python;
  Engine engine(o);
  protocol::BuildReport b = engine.build(BuildRequest{{d.path / "k.cpp", std::nullopt}, {}});
  EXPECT_TRUE(b.compile.ok) << (b.compile.diagnostics.empty() ? "" : b.compile.diagnostics[0].message);
  EXPECT_EQ(b.form, "raw");
  EXPECT_FALSE(fs::exists(log)) << "the raw-form build started " << python << ":\n" << read_file(log);

  write_text(d.path / "t.cpp", "#include <torch/extension.h>\ntorch::Tensor forward(torch::Tensor x) { return x; }\n");
  try {
    engine.build(BuildRequest{{d.path / "t.cpp", std::nullopt}, {}});
    ADD_FAILURE() << "a torch-form build without torch went ahead";
  } catch (const EngineError& e) {
    EXPECT_EQ(e.kind(), EngineError::Kind::Environment) << e.what();
  }
  EXPECT_TRUE(fs::exists(log)) << "the torch-form build never asked the interpreter";
}

}  // namespace
}  // namespace hone
