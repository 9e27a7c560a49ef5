// tests/engine/machine_code_counters_test.cpp: the SASS view with the last profile's counters,
// through the real engine and a real nvcc build: without a profile of the build it says so;
// with one (kept as Engine::profile keeps it) each instruction line gets the counts CUPTI gave
// at its offset and each source line their sum; a profile without counters gives its reason; an
// edited kernel is another build, without a profile. Where no nvdisasm is installed (CI), a
// stand-in on PATH prints tests/toolchain/fixtures/scale.nvdisasm; a real nvdisasm beside nvcc
// wins over it, and the test reads the offsets from whichever listing came back.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/last_profile.h"

namespace hone {
namespace {

namespace fs = std::filesystem;

const char* kScale =
    "// scale.cu: y = a * x, and a copy\n"
    "__global__ void scale(const float* x, float* y, int n, float a) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n)\n"
    "    y[i] = a * x[i];\n"
    "}\n"
    "\n"
    "__global__ void copy(const float* x, float* y) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  y[i] = x[i];\n"
    "}\n";

const std::string kInst = "smsp__sass_inst_executed";
const std::string kThread = "smsp__sass_thread_inst_executed";

std::optional<std::uint32_t> offset_of(const std::string& line) {
  static const std::regex re(R"(^\s*/\*([0-9a-fA-F]{4,8})\*/)");
  std::smatch m;
  if (!std::regex_search(line, m, re)) return std::nullopt;
  return static_cast<std::uint32_t>(std::stoul(m[1].str(), nullptr, 16));
}

class MachineCodeCounters : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists("/usr/local/cuda/bin/nvcc")) GTEST_SKIP() << "no /usr/local/cuda/bin/nvcc: the SASS view needs a CUDA build";
    dir_ = fs::temp_directory_path() / ("hone-machine-code-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "bin");
    const fs::path fake = dir_ / "bin" / "nvdisasm";
    std::ofstream(fake) << "#!/bin/sh\nexec cat '" << HONE_NVDISASM_FIXTURE << "'\n";
    fs::permissions(fake, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                              fs::perms::others_exec);
    const char* path = std::getenv("PATH");
    old_path_ = path ? path : "";
    ::setenv("PATH", ((dir_ / "bin").string() + ":" + old_path_).c_str(), 1);
    fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                              fs::perms::others_exec);
    kernel_ = dir_ / "scale.cu";
    std::ofstream(kernel_) << kScale;
    EngineOptions o;
    o.workspace = dir_;
    o.python = "/usr/bin/python3";
    o.device = DeviceKind::Cpu;
    o.arch = "sm_90";
    engine_ = std::make_unique<Engine>(o);
  }
  void TearDown() override {
    engine_.reset();
    if (!old_path_.empty()) ::setenv("PATH", old_path_.c_str(), 1);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  MachineCode sass(std::optional<std::string> contents = std::nullopt) {
    return engine_->machine_code({{kernel_, std::move(contents)}, "sass", "scale", 0});
  }
  std::string build_key() { return engine_->build(BuildRequest{{kernel_, std::nullopt}, {}, true, false}).key; }

  fs::path dir_, kernel_;
  std::string old_path_;
  std::unique_ptr<Engine> engine_;
};

// Counts for every instruction of `code`, distinct per offset (thread count 1000 + offset).
protocol::SassCounters counts_for(const MachineCode& code) {
  protocol::SassCounters c;
  c.available = true;
  c.chip = "GH100";
  c.metrics = {kInst, kThread};
  protocol::SassKernel k;
  k.function = code.symbol;
  for (const auto& l : code.lines)
    if (auto pc = offset_of(l.text)) k.instructions.push_back({*pc, {{kInst, 32}, {kThread, 1000 + *pc}}});
  c.kernels.push_back(std::move(k));
  return c;
}

TEST_F(MachineCodeCounters, WithoutAProfileOfTheBuildTheViewSaysSo) {
  MachineCode code = sass();
  EXPECT_EQ(code.kind, "sass");
  EXPECT_EQ(code.name, "scale");
  EXPECT_EQ(code.counters_note, "no profile of this build yet: run Profile to see per-line counters");
  EXPECT_TRUE(code.counter_metrics.empty());
  EXPECT_TRUE(code.source_counters.empty());
  for (const auto& l : code.lines) EXPECT_FALSE(l.counters) << l.text;
}

TEST_F(MachineCodeCounters, TheLastProfileOfTheBuildPutsItsCountsBesideEachInstruction) {
  MachineCode plain = sass();
  const std::string key = build_key();
  ASSERT_FALSE(key.empty());
  save_last_sass_profile(dir_, {key, kernel_.string(), "2025-06-01T12:00:00Z", counts_for(plain)});

  MachineCode code = sass();
  EXPECT_EQ(code.counter_metrics, (std::vector<std::string>{kInst, kThread}));
  EXPECT_NE(code.counters_note.find("counters of the last profile of this build (2025-06-01T12:00:00Z)"), std::string::npos)
      << code.counters_note;
  ASSERT_TRUE(code.profiled_at);
  std::size_t counted = 0, load = 0;
  std::map<int, std::uint64_t> per_line;
  for (const auto& l : code.lines) {
    auto pc = offset_of(l.text);
    ASSERT_EQ(pc.has_value(), l.counters.has_value()) << l.text;
    if (!pc) continue;
    ++counted;
    EXPECT_EQ(l.counters->at(kThread), 1000 + *pc) << l.text;
    if (l.text.find("LDG") != std::string::npos) ++load;
    if (l.line > 0) per_line[l.line] += l.counters->at(kInst);
  }
  EXPECT_GT(counted, 5u);
  EXPECT_GE(load, 1u) << "the load of x[i] has its counts";
  ASSERT_FALSE(code.source_counters.empty());
  for (const auto& s : code.source_counters) EXPECT_EQ(s.counters.at(kInst), per_line[s.line]) << "line " << s.line;
  bool line5 = false;
  for (const auto& s : code.source_counters) line5 = line5 || (s.line == 5 && s.counters.at(kInst) > 0);
  EXPECT_TRUE(line5) << "y[i] = a * x[i] sums its instructions";
}

TEST_F(MachineCodeCounters, AProfileWithoutCountersGivesItsReason) {
  protocol::SassCounters none;
  none.available = false;
  none.code = "insufficient_privileges";
  none.message = "GPU performance counters are restricted to administrators on this machine";
  save_last_sass_profile(dir_, {build_key(), kernel_.string(), "2025-06-01T12:00:00Z", none});
  MachineCode code = sass();
  EXPECT_NE(code.counters_note.find("has no per-line counters: GPU performance counters are restricted"), std::string::npos)
      << code.counters_note;
  for (const auto& l : code.lines) EXPECT_FALSE(l.counters);
}

TEST_F(MachineCodeCounters, AnEditedKernelIsAnotherBuildWithoutAProfile) {
  MachineCode plain = sass();
  save_last_sass_profile(dir_, {build_key(), kernel_.string(), "2025-06-01T12:00:00Z", counts_for(plain)});
  MachineCode edited = sass(std::string(kScale) + "// edited\n");
  EXPECT_EQ(edited.counters_note, "no profile of this build yet: run Profile to see per-line counters");
  for (const auto& l : edited.lines) EXPECT_FALSE(l.counters);
}

TEST_F(MachineCodeCounters, TheCountsOfAnotherKernelAreNotShownForThisOne) {
  MachineCode plain = sass();
  protocol::SassCounters c = counts_for(plain);
  c.kernels[0].function = "_Z5otherPf";
  save_last_sass_profile(dir_, {build_key(), kernel_.string(), "2025-06-01T12:00:00Z", c});
  MachineCode code = sass();
  EXPECT_NE(code.counters_note.find("did not launch scale"), std::string::npos) << code.counters_note;
  for (const auto& l : code.lines) EXPECT_FALSE(l.counters);
}

}  // namespace
}  // namespace hone
