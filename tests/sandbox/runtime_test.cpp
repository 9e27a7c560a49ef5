// Real runtimes inside the sandbox: torch on the CPU (here), and on the H200 (scripts/gpu/sandbox.sh;
// skipped without a GPU) a tiny CUDA program built and run confined, torch.cuda in a confined
// Python, and the control that without the device nodes CUDA sees no GPU.
#include "sandbox_fixture.h"

namespace hone::sandbox::testing {
namespace {

bool has_gpu() { return fs::exists("/dev/nvidiactl") && fs::exists("/dev/nvidia0"); }

std::optional<fs::path> nvcc_path() {
  if (auto p = find_program("nvcc")) return p;
  if (fs::exists("/usr/local/cuda/bin/nvcc")) return fs::path("/usr/local/cuda/bin/nvcc");
  return std::nullopt;
}

// $HONE_TEST_PYTHON, else python3 on PATH, if it imports torch with CUDA.
std::optional<fs::path> torch_cuda_python() {
  const char* env = std::getenv("HONE_TEST_PYTHON");
  auto python = env ? std::optional<fs::path>(env) : find_program("python3");
  if (!python) return std::nullopt;
  ProcessSpec probe;
  probe.argv = {python->string(), "-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"};
  probe.timeout = std::chrono::seconds(120);
  return run_process(probe).ok() ? python : std::nullopt;
}

const char* kProgram = R"(#include <cstdio>
#include <cuda_runtime.h>
__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
int main() {
  int devices = 0;
  cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) { std::printf("NO-GPU %s\n", cudaGetErrorString(e)); return 3; }
  const int n = 1 << 20;
  float *a, *b, *c;
  cudaMallocManaged(&a, n * sizeof(float)); cudaMallocManaged(&b, n * sizeof(float)); cudaMallocManaged(&c, n * sizeof(float));
  for (int i = 0; i < n; ++i) { a[i] = 1; b[i] = 2; }
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
  e = cudaDeviceSynchronize();
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += c[i];
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
  std::printf("GPU-OK %s sum=%.0f on %s\n", cudaGetErrorString(e), sum, p.name);
  return 0;
}
)";

class ConfinedRuntime : public ModeTest {};

// $HONE_TEST_PYTHON, else /usr/bin/python3.
fs::path test_python() {
  const char* env = std::getenv("HONE_TEST_PYTHON");
  return env ? fs::path(env) : fs::path(kPython);
}

TEST_P(ConfinedRuntime, TorchRunsOnTheCpu) {
  const fs::path python = test_python();
  ProcessSpec probe;
  probe.argv = {python.string(), "-c", "import torch"};
  probe.timeout = std::chrono::seconds(120);
  if (!run_process(probe).ok()) GTEST_SKIP() << python << " does not import torch here (set HONE_TEST_PYTHON)";
  Tree t;
  ProcessSpec spec;
  spec.argv = {python.string(), "-c",
               "import torch; x = torch.arange(12.0).reshape(3, 4); print('TORCH-CPU', (x @ x.T).trace().item(), "
               "torch.get_num_threads() > 0)"};
  spec.timeout = std::chrono::seconds(120);
  auto r = sandbox().unwrap_result(
      run_process(sandbox().wrap(spec, run_policy(t.scratch, python_read_paths(python), false))));
  EXPECT_TRUE(r.ok()) << r.describe() << "\n" << r.err;
  EXPECT_EQ(r.out, "TORCH-CPU 506.0 True\n") << r.err;
}

INSTANTIATE_TEST_SUITE_P(Modes, ConfinedRuntime, ::testing::Values(SandboxMode::bwrap, SandboxMode::namespaces),
                         mode_name);

class GpuSandbox : public ModeTest {
 protected:
  void SetUp() override {
    if (!has_gpu()) GTEST_SKIP() << "no GPU here (/dev/nvidiactl, /dev/nvidia0): runs on the H200";
    ModeTest::SetUp();
  }
};

TEST_P(GpuSandbox, CudaProgramBuildsAndRunsConfined) {
  auto nvcc = nvcc_path();
  if (!nvcc) GTEST_SKIP() << "nvcc is not installed here";
  Tree t;
  write_text(t.kernel / "add.cu", kProgram);
  ProcessSpec build;
  build.argv = {nvcc->string(), "-arch=sm_90", "-o", (t.scratch / "add").string(), (t.kernel / "add.cu").string()};
  build.timeout = std::chrono::seconds(180);
  auto b = run_process(sandbox().wrap(build, build_policy(t.kernel, t.scratch, {compiler_root(*nvcc)})));
  ASSERT_TRUE(b.ok()) << b.describe() << "\n" << b.err;

  const fs::path run_dir = t.root / "run";
  ProcessSpec run;
  run.argv = {(t.scratch / "add").string()};
  run.timeout = std::chrono::seconds(60);
  auto r = sandbox().unwrap_result(run_process(sandbox().wrap(run, run_policy(run_dir, {t.scratch}, true))));
  EXPECT_TRUE(r.ok()) << r.describe() << "\n" << r.out << r.err;
  EXPECT_NE(r.out.find("GPU-OK no error sum=3145728"), std::string::npos) << r.out << r.err;
  std::cout << r.out;

  // Control: the same program without the device nodes sees no GPU.
  auto blind = run_process(sandbox().wrap(run, run_policy(run_dir, {t.scratch}, false)));
  EXPECT_NE(blind.out.find("NO-GPU"), std::string::npos) << blind.out << blind.err;
}

TEST_P(GpuSandbox, TorchCudaWorksConfined) {
  auto python = torch_cuda_python();
  if (!python) GTEST_SKIP() << "no python3 with CUDA torch (set HONE_TEST_PYTHON)";
  Tree t;
  ProcessSpec spec;
  spec.argv = {python->string(), "-c",
               "import torch; x = torch.ones(1 << 20, device='cuda'); torch.cuda.synchronize();"
               "print('TORCH-CUDA', x.sum().item(), torch.cuda.get_device_name())"};
  spec.timeout = std::chrono::seconds(180);
  auto r = sandbox().unwrap_result(
      run_process(sandbox().wrap(spec, run_policy(t.scratch, python_read_paths(*python), true))));
  EXPECT_TRUE(r.ok()) << r.describe() << "\n" << r.err;
  EXPECT_NE(r.out.find("TORCH-CUDA 1048576.0"), std::string::npos) << r.out << r.err;
  std::cout << r.out;
}

INSTANTIATE_TEST_SUITE_P(Modes, GpuSandbox, ::testing::Values(SandboxMode::bwrap, SandboxMode::namespaces), mode_name);

}  // namespace
}  // namespace hone::sandbox::testing
