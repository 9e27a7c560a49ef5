// The overlapped nvcc (toolchain/nvcc_pipeline.h) against the real nvcc: its dry run splits as
// expected, a build made with it matches one nvcc run (kernels, registrations, diagnostics), a
// front-end error stops the device chain, and deadlines and stop requests still end the build.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <thread>

#include "support/hash.h"
#include "support/subprocess.h"
#include "toolchain/nvcc_pipeline.h"
#include "toolchain/tools.h"
#include "toolchain_test_support.h"

namespace hone::toolchain::testing {
namespace {
namespace fs = std::filesystem;

using NvccOverlap = ToolchainTest;

std::string dry_run(const fs::path& dir, const std::vector<std::string>& args) {
  ProcessSpec spec;
  spec.argv = {find_nvcc().tool->path.string(), "--dryrun"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.cwd = dir;
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.ok()) << r.describe() << r.err;
  return r.err;
}

std::vector<std::string> tools(const std::vector<NvccStep>& steps) {
  std::vector<std::string> out;
  for (const auto& s : steps) out.push_back(s.tool);
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

TEST_F(NvccOverlap, SplitsARealDryRunIntoHostFrontDeviceChainAndLink) {
  HONE_REQUIRE_NVCC();
  write("k.cu", "__global__ void k(float* x) { x[0] = 1; }\nvoid f(float* x) { k<<<1, 1>>>(x); }\n");
  fs::create_directories(dir_ / "keep");
  const std::string text = dry_run(dir_, {"-arch=sm_90", "-O3", "-Xptxas", "-v", "--keep", "--keep-dir", "keep", "-Xcompiler",
                                          "-fPIC", "-shared", "k.cu", "-o", "k.so"});
  std::string why;
  auto steps = split_nvcc_steps(text, &why);
  ASSERT_TRUE(steps) << why << "\n" << text;
  ASSERT_EQ(steps->host.size(), 2u);
  EXPECT_TRUE(std::regex_search(steps->host[0].line, std::regex("\\s-E\\s"))) << steps->host[0].line;
  EXPECT_EQ(steps->host[1].tool, "cudafe++");
  EXPECT_EQ(steps->host[1].line.find("--gen_module_id_file"), std::string::npos) << "hone writes the module id itself";
  EXPECT_NE(steps->host[1].line.find("--module_id_file_name"), std::string::npos);
  const auto device = tools(steps->device);
  EXPECT_TRUE(contains(device, "cicc") && contains(device, "ptxas")) << ::testing::PrintToString(device);
  EXPECT_EQ(device.back(), "fatbinary");
  EXPECT_FALSE(contains(device, "cudafe++"));
  ASSERT_FALSE(steps->after.empty());
  EXPECT_NE(steps->after.front().line.find(" -c "), std::string::npos) << "the host compile comes first after the fatbin";
  EXPECT_EQ(steps->module_id_file, "keep/k.module_id");
  EXPECT_TRUE(steps->env.count("CICC_PATH")) << "cicc is named through $CICC_PATH";
  EXPECT_TRUE(steps->env.count("PATH"));
  for (const auto& s : steps->before) EXPECT_EQ(s.tool, "rm");
}

TEST_F(NvccOverlap, RefusesDryRunsOfAnotherShape) {
  const std::string pre = "#$ PATH=/x\n#$ gcc -E -x c++ k.cu -o k.cpp4.ii\n";
  const std::string front =
      "#$ cudafe++ --gen_c_file_name \"k.cudafe1.cpp\" --gen_module_id_file --module_id_file_name \"k.module_id\" k.cpp4.ii\n";
  const std::string device =
      "#$ gcc -E -D__CUDA_ARCH__=900 k.cu -o k.cpp1.ii\n"
      "#$ \"$CICC_PATH/cicc\" --module_id_file_name \"k.module_id\" k.cpp1.ii -o k.ptx\n"
      "#$ ptxas k.ptx -o k.cubin\n#$ fatbinary --create=k.fatbin\n";
  const std::string link = "#$ gcc -c -x c++ k.cudafe1.cpp -o k.o\n";
  std::string why;
  ASSERT_TRUE(split_nvcc_steps(pre + front + device + link, &why)) << why;

  struct Case {
    std::string text, reason;
  };
  const std::vector<Case> cases{
      {pre + device + link, "no cudafe++ step"},
      {pre + front + link, "no cicc step"},
      {pre + front + device, "no fatbinary step before the host compile"},
      {"#$ gcc -E k.cu\n#$ cudafe++ --gen_c_file_name \"k.cudafe1.cpp\" --module_id_file_name \"k.module_id\" k.ii\n" + device + link,
       "cudafe++ does not make the module id"},
      {pre + front + "#$ \"$CICC_PATH/cicc\" --module_id_file_name \"other.module_id\" k.ii\n#$ fatbinary x\n" + link,
       "cicc reads another module id file"},
      {pre + front + "#$ \"$CICC_PATH/cicc\" --module_id_file_name \"k.module_id\" k.cudafe1.cpp\n#$ fatbinary x\n" + link,
       "a device step reads cudafe++'s output"},
      {"#$ touch x\n" + pre + front + device + link, "an unexpected step before the host front end"},
  };
  for (const auto& c : cases) {
    why.clear();
    EXPECT_FALSE(split_nvcc_steps(c.text, &why)) << c.text;
    EXPECT_NE(why.find(c.reason), std::string::npos) << why;
  }
}

TEST_F(NvccOverlap, ModuleIdsHaveCudafesShapeAndDependOnlyOnTheSeed) {
  const std::string id = make_module_id("nvcc -arch=sm_90 kernel.cu", "kernel.cu");
  EXPECT_TRUE(std::regex_match(id, std::regex("_[0-9a-f]{8}_9_kernel_cu_[0-9a-f]{8}"))) << id;
  EXPECT_EQ(id, make_module_id("nvcc -arch=sm_90 kernel.cu", "kernel.cu"));
  EXPECT_NE(id, make_module_id("nvcc -arch=sm_80 kernel.cu", "kernel.cu"));
}

std::set<std::string> ptx_entries(const fs::path& ptx) {
  std::set<std::string> out;
  const std::string text = read_file(ptx);
  static const std::regex entry(R"(\.entry\s+([A-Za-z_$][\w$]*))");
  for (std::sregex_iterator it(text.begin(), text.end(), entry), end; it != end; ++it) out.insert((*it)[1].str());
  return out;
}

TEST_F(NvccOverlap, OverlappedBuildRegistersTheSameKernelsAsOneNvccRun) {
  HONE_REQUIRE_NVCC();
  const fs::path kernel = write("k.cu", kRawCudaKernels);
  BuildResult overlapped = build(kernel);
  ASSERT_EQ(overlapped.outcome, BuildOutcome::Built) << overlapped.error;
  EXPECT_EQ(overlapped.nvcc_overlap, "overlapped");
  EXPECT_GT(overlapped.stage_seconds.at("nvcc_device"), 0.0);
  EXPECT_GT(overlapped.stage_seconds.at("nvcc_host_front"), 0.0);

  BuildResult whole;
  {
    ScopedEnv off("HONE_NVCC_OVERLAP", "0");
    BuildRequest r;
    r.kernel = kernel;
    r.arch = "sm_90";
    whole = KernelBuilder(share_dir(), dir_ / "cache-whole").build(r);
  }
  ASSERT_EQ(whole.outcome, BuildOutcome::Built) << whole.error;
  EXPECT_TRUE(whole.nvcc_overlap.empty()) << whole.nvcc_overlap;

  // The same kernels with the same resources.
  ASSERT_EQ(overlapped.report.kernels.size(), 3u);
  ASSERT_EQ(whole.report.kernels.size(), overlapped.report.kernels.size());
  for (std::size_t i = 0; i < whole.report.kernels.size(); ++i) {
    EXPECT_EQ(overlapped.report.kernels[i].name, whole.report.kernels[i].name);
    EXPECT_EQ(overlapped.report.kernels[i].registers, whole.report.kernels[i].registers);
  }
  // The host side registers each device entry by its device name, which for the anonymous and
  // static kernels carries the module id: with ids that disagreed, a name would be missing.
  for (const BuildResult* r : {&overlapped, &whole}) {
    const fs::path lib = r->library;
    const auto entries = ptx_entries(lib.parent_path() / "kernel.ptx");
    ASSERT_EQ(entries.size(), 3u);
    const std::string so = read_file(lib);
    for (const auto& e : entries) EXPECT_NE(so.find(e + '\0'), std::string::npos) << e << " is not registered in " << lib;
    EXPECT_TRUE(std::any_of(entries.begin(), entries.end(), [](const std::string& e) { return e.find("_GLOBAL__N_") != std::string::npos; }))
        << "the anonymous-namespace kernel's name carries the module id";
  }
}

// The worker loads many kernels into one process: two files in one folder (the same command) must
// not share the names of their anonymous-namespace kernels.
TEST_F(NvccOverlap, KernelsWithTheSameCommandGetTheirOwnModuleIds) {
  HONE_REQUIRE_NVCC();
  BuildResult a = build(write("a.cu", kRawCudaKernels));
  BuildResult b = build(write("b.cu", std::string(kRawCudaKernels) + "// another kernel\n"));
  ASSERT_EQ(a.outcome, BuildOutcome::Built) << a.error;
  ASSERT_EQ(b.outcome, BuildOutcome::Built) << b.error;
  EXPECT_EQ(a.report.command, b.report.command);
  auto anonymous = [](const BuildResult& r) {
    for (const auto& e : ptx_entries(fs::path(r.library).parent_path() / "kernel.ptx"))
      if (e.find("_GLOBAL__N_") != std::string::npos) return e;
    return std::string();
  };
  ASSERT_FALSE(anonymous(a).empty());
  EXPECT_NE(anonymous(a), anonymous(b));
}

std::vector<std::string> messages(const BuildResult& r) {
  std::vector<std::string> out;
  for (const auto& d : r.report.diagnostics)
    out.push_back(std::to_string(d.line) + ":" + std::to_string(d.column) + " " + std::string(protocol::to_string(d.severity)) + " " +
                  d.message);
  return out;
}

TEST_F(NvccOverlap, DiagnosticsAreNvccsOwnAndReportedOnce) {
  HONE_REQUIRE_NVCC();
  // A front-end error (both cudafe++ and cicc would report it) and a device-only one (cicc alone).
  const fs::path syntax = write("syntax.cu", R"(#include "hone.h"
__global__ void k(float* y) { y[0] = undeclared_name; }
void forward(hone::Out<float> y, hone::Stream s) { k<<<1, 1, 0, s>>>(y.data()); }
)");
  const fs::path device = write("device.cu", R"(#include "hone.h"
float host_only(float v) { return v * 2; }
__global__ void k(float* y) { y[0] = host_only(y[0]); }
void forward(hone::Out<float> y, hone::Stream s) { k<<<1, 1, 0, s>>>(y.data()); }
)");
  for (const fs::path& kernel : {syntax, device}) {
    BuildResult overlapped = build(kernel);
    BuildResult whole;
    {
      ScopedEnv off("HONE_NVCC_OVERLAP", "0");
      whole = build(kernel);
    }
    ASSERT_EQ(overlapped.outcome, BuildOutcome::CompileError) << kernel;
    ASSERT_EQ(whole.outcome, BuildOutcome::CompileError) << kernel;
    EXPECT_EQ(messages(overlapped), messages(whole)) << kernel;
    EXPECT_GE(overlapped.report.count(protocol::Severity::Error), 1) << kernel;
  }
  // cudafe++ and cicc both parse the file: nvcc stops after cudafe++'s report, and so must hone.
  EXPECT_EQ(build(syntax).report.count(protocol::Severity::Error), 1);
}

// Makes every command whose text names `tool` sleep first (through the sandbox's wrap seam).
std::function<ProcessSpec(ProcessSpec)> slow_step(const std::string& tool, const std::string& seconds) {
  return [tool, seconds](ProcessSpec spec) {
    bool hit = false;
    for (const auto& a : spec.argv) hit = hit || a.find(tool) != std::string::npos;
    if (!hit) return spec;
    std::vector<std::string> argv{"sh", "-c", "sleep " + seconds + "; exec \"$@\"", "sh"};
    argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
    spec.argv = argv;
    return spec;
  };
}

TEST_F(NvccOverlap, AFrontEndErrorStopsTheDeviceChain) {
  HONE_REQUIRE_NVCC();
  BuildRequest r;
  r.kernel = write("bad.cu", "#include \"hone.h\"\n__global__ void k(float* y) { y[0] = nope; }\n"
                             "void forward(hone::Out<float> y, hone::Stream s) { k<<<1, 1, 0, s>>>(y.data()); }\n");
  r.arch = "sm_90";
  r.wrap_command = slow_step("/cicc", "60");
  BuildResult res = builder().build(r);
  EXPECT_EQ(res.outcome, BuildOutcome::CompileError) << res.error;
  EXPECT_EQ(res.nvcc_overlap, "overlapped");
  EXPECT_LT(res.seconds, 30.0) << "cudafe++ failed: the device chain must be stopped, not waited for";
  EXPECT_EQ(res.report.count(protocol::Severity::Error), 1) << ::testing::PrintToString(messages(res));
}

TEST_F(NvccOverlap, DeadlineAndStopEndTheOverlappedSteps) {
  HONE_REQUIRE_NVCC();
  const fs::path kernel = write("k.cu", kRawCudaKernels);
  BuildRequest r;
  r.kernel = kernel;
  r.arch = "sm_90";
  r.timeout = std::chrono::seconds(3);
  r.wrap_command = slow_step("/cicc", "60");
  BuildResult slow = builder().build(r);
  EXPECT_EQ(slow.outcome, BuildOutcome::TimedOut) << slow.error;
  EXPECT_LT(slow.seconds, 20.0);

  std::stop_source stop;
  r.timeout = std::chrono::seconds(300);
  r.stop = stop.get_token();
  std::jthread stopper([&stop] {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    stop.request_stop();
  });
  BuildResult cancelled = builder().build(r);
  EXPECT_EQ(cancelled.outcome, BuildOutcome::Cancelled) << cancelled.error;
  EXPECT_LT(cancelled.seconds, 20.0);

  r.wrap_command = nullptr;
  r.stop = {};
  BuildResult ok = builder().build(r);
  EXPECT_EQ(ok.outcome, BuildOutcome::Built) << ok.error;
  EXPECT_FALSE(ok.cached) << "neither the timed-out nor the cancelled build may be cached";
}

}  // namespace
}  // namespace hone::toolchain::testing
