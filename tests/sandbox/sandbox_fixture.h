// tests/sandbox/sandbox_fixture.h: shared pieces of the sandbox tests: a throw-away tree with a
// fake home, a workspace with canaries, a kernel folder and a scratch folder; the detected
// support (once per process); and a runner for the hostile libraries through the Python host.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sandbox/sandbox.h"

namespace hone::sandbox {
// Test names say the mode in words.
inline void PrintTo(SandboxMode mode, std::ostream* os) { *os << to_string(mode); }
}  // namespace hone::sandbox

namespace hone::sandbox::testing {

namespace fs = std::filesystem;

inline const SandboxSupport& detected_support() {
  static const SandboxSupport support = detect_support();
  return support;
}

inline void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// /tmp/hone-sandbox-test-XXXXXX/{home/.ssh/id_rsa, ws/secret.txt, ws/.hone/hone.db,
// ws/kernel/kernel.txt, scratch/, outside/}; world-readable folders, so a sandbox user can be
// given them. Removed at the end.
struct Tree {
  fs::path root, home, ws, kernel, scratch, outside;
  Tree() {
    std::string tmpl = "/tmp/hone-sandbox-test-XXXXXX";
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    root = tmpl;
    fs::permissions(root, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
    home = root / "home";
    ws = root / "ws";
    kernel = ws / "kernel";
    scratch = root / "scratch";
    outside = root / "outside";
    write_text(home / ".ssh" / "id_rsa", "CANARY-HOME-ID-RSA\n");
    write_text(ws / "secret.txt", "CANARY-WORKSPACE\n");
    write_text(ws / ".hone" / "hone.db", "CANARY-STORE\n");
    write_text(kernel / "kernel.txt", "KERNEL-OK\n");
    write_text(kernel / ".env", "CANARY-DOTENV\n");
    fs::create_directories(scratch);
    fs::create_directories(outside);
  }
  ~Tree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;
};

inline fs::path hostile_library(const std::string& name) {
  return fs::path(HONE_HOSTILE_DIR) / ("hostile_" + name + ".so");
}

inline fs::path host_script() { return fs::path(HONE_SANDBOX_TEST_DIR) / "hostile" / "host.py"; }

inline const char* kPython = "/usr/bin/python3";

// The eval worker's kind of policy for the hostile host, with test-sized limits.
inline SandboxPolicy hostile_policy(const Tree& t) {
  std::vector<fs::path> reads = python_read_paths(kPython);
  reads.push_back(host_script().parent_path());
  reads.push_back(HONE_HOSTILE_DIR);
  reads.push_back(t.kernel);
  SandboxPolicy policy = run_policy(t.scratch, reads, false);
  policy.hidden.push_back(t.kernel / ".env");
  policy.limits.address_space_bytes = 2ull << 30;
  policy.limits.processes = 64;
  policy.limits.file_size_bytes = 8u << 20;
  policy.limits.cpu_seconds = 60;
  return policy;
}

inline ProcessResult run_hostile(const Sandbox& sandbox, const SandboxPolicy& policy, const std::string& name,
                                 const std::vector<std::string>& args,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(30),
                                 std::size_t max_output = 1u << 20) {
  ProcessSpec spec;
  spec.argv = {kPython, host_script().string(), hostile_library(name).string()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.timeout = timeout;
  spec.max_output_bytes = max_output;
  return sandbox.unwrap_result(run_process(sandbox.wrap(spec, policy)));
}

inline std::string mode_name(const ::testing::TestParamInfo<SandboxMode>& info) {
  return std::string(to_string(info.param));
}

// A test fixture over one confinement mode; skips visibly when the machine lacks it.
class ModeTest : public ::testing::TestWithParam<SandboxMode> {
 protected:
  void SetUp() override {
    const SandboxSupport& s = detected_support();
    if (!s.usable(GetParam()))
      GTEST_SKIP() << "sandbox mode " << to_string(GetParam()) << " is not usable here: "
                   << (GetParam() == SandboxMode::bwrap ? s.bwrap_problem : s.namespaces_problem);
    sandbox_ = std::make_unique<Sandbox>(GetParam(), false, s);
  }
  const Sandbox& sandbox() const { return *sandbox_; }

 private:
  std::unique_ptr<Sandbox> sandbox_;
};

}  // namespace hone::sandbox::testing
