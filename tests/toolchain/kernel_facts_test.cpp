// Per-kernel facts from real nvcc/ptxas runs: registers, local memory and spills, shared memory,
// constant bytes, PTX load/store widths, tensor-core instructions, several kernels, occupancy with
// the block size's origin; SASS facts where cuobjdump exists (the GPU machine).
#include <algorithm>

#include <gtest/gtest.h>

#include "toolchain/instruction_facts.h"
#include "toolchain/occupancy.h"
#include "toolchain_test_support.h"

namespace hone::toolchain::testing {
namespace {

using protocol::BlockSizeSource;
using protocol::KernelStatic;
using protocol::OccupancyLimit;

using KernelFactsTest = ToolchainTest;

const KernelStatic* kernel_named(const BuildResult& r, const std::string& prefix) {
  for (const auto& k : r.report.kernels)
    if (k.name.rfind(prefix, 0) == 0) return &k;
  return nullptr;
}

const char* kFacts = R"(#include "hone.h"
#define BLOCK 128
__constant__ float coeffs[64];

__global__ void __launch_bounds__(BLOCK) scalar_copy(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * coeffs[i & 63];
}

__global__ void vector_copy(const float4* __restrict__ x, float4* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

__global__ void with_shared(const float* x, float* y) {
  __shared__ float tile[1024];
  tile[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  y[threadIdx.x] = tile[1023 - threadIdx.x];
}

__global__ void local_array(const int* idx, float* y, int k) {
  float a[256];
  for (int j = 0; j < 256; ++j) a[j] = y[(j * k) & 1023];
  float s = 0;
  for (int j = 0; j < 256; ++j) s += a[idx[j] & 255];
  y[threadIdx.x] = s;
}

void forward(hone::In<float> x, hone::Out<float> y, hone::Stream s) {
  int n = static_cast<int>(x.numel());
  scalar_copy<<<(n + BLOCK - 1) / BLOCK, BLOCK, 0, s>>>(x.data(), y.data(), n);
  vector_copy<<<(n / 4 + 511) / 512, 512, 0, s>>>(reinterpret_cast<const float4*>(x.data()), reinterpret_cast<float4*>(y.data()), n / 4);
  with_shared<<<1, 1024, 0, s>>>(x.data(), y.data());
}
)";

// Hopper's own instructions (wgmma) build for the arch-specific target hone picks on a 9.0 GPU:
// nvcc is given the -gencode form, the cubin's facts are read, and the tensor-core op is seen.
constexpr const char* kWgmma = R"(#include "hone.h"
__global__ void __launch_bounds__(128) hopper_mma(float* out, unsigned long long desc) {
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  asm volatile("wgmma.fence.sync.aligned;\n");
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %4, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(desc));
  asm volatile("wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  out[threadIdx.x] = d[0] + d[1] + d[2] + d[3];
}
void forward(hone::Out<float> out, hone::Stream s) { hopper_mma<<<1, 128, 0, s>>>(out.data(), 0ull); }
)";

TEST_F(KernelFactsTest, ArchSpecificTargetBuildsWgmma) {
  HONE_REQUIRE_NVCC();
  BuildResult r = build(write("hopper.cu", kWgmma), std::string("sm_90a"));
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error;
  EXPECT_EQ(r.report.arch, "sm_90a");
  const auto& argv = r.report.command;
  EXPECT_NE(std::find(argv.begin(), argv.end(), "-gencode=arch=compute_90a,code=[sm_90a,compute_90a]"), argv.end());
  const KernelStatic* k = kernel_named(r, "hopper_mma");
  ASSERT_NE(k, nullptr);
  ASSERT_TRUE(k->registers) << "ptxas's report of the sm_90a pass is read";
  ASSERT_TRUE(k->ptx);
  EXPECT_TRUE(k->ptx->tensor_core) << "wgmma counts as a tensor-core instruction";
  // The same file for plain sm_90 fails in ptxas, with the reason as a diagnostic.
  BuildResult plain = build(write("hopper_plain.cu", kWgmma), std::string("sm_90"));
  EXPECT_EQ(plain.outcome, BuildOutcome::CompileError);
}

TEST_F(KernelFactsTest, ResourcesWidthsAndOccupancy) {
  HONE_REQUIRE_NVCC();
  BuildResult r = build(write("facts.cu", kFacts), std::string("sm_90"));
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error;
  EXPECT_EQ(r.report.kernels.size(), 4u);
  EXPECT_EQ(r.own_kernels, (std::vector<std::string>{"scalar_copy", "vector_copy", "with_shared", "local_array"}));

  const KernelStatic* scalar = kernel_named(r, "scalar_copy");
  ASSERT_NE(scalar, nullptr);
  EXPECT_EQ(scalar->name, "scalar_copy(float const*, float*, int)");
  EXPECT_EQ(scalar->mangled, "_Z11scalar_copyPKfPfi");
  EXPECT_EQ(scalar->line, 5);
  ASSERT_TRUE(scalar->registers);
  EXPECT_GT(*scalar->registers, 0);
  EXPECT_LE(*scalar->registers, 32);
  EXPECT_EQ(scalar->spill_store_bytes, 0);
  EXPECT_EQ(scalar->static_shared_bytes, 0);
  // The parameter bank (at least the 20 bytes of parameters) plus 256 bytes of __constant__ data.
  ASSERT_TRUE(scalar->constant_bytes);
  EXPECT_GE(*scalar->constant_bytes, 256 + 20);
  ASSERT_TRUE(scalar->ptx);
  EXPECT_EQ(scalar->ptx->global_loads.at(32), 1);
  EXPECT_EQ(scalar->ptx->global_stores.at(32), 1);
  EXPECT_FALSE(scalar->ptx->tensor_core);
  ASSERT_TRUE(scalar->occupancy);
  EXPECT_EQ(scalar->occupancy->block_size, 128);
  EXPECT_EQ(scalar->occupancy->block_size_source, BlockSizeSource::LaunchBounds);
  EXPECT_EQ(scalar->occupancy->active_blocks_per_sm, 16);  // 64 warps / 4 warps per block
  EXPECT_EQ(scalar->occupancy->occupancy_pct, 100.0);
  EXPECT_EQ(scalar->occupancy->limited_by, OccupancyLimit::Warps);

  const KernelStatic* vec = kernel_named(r, "vector_copy");
  ASSERT_NE(vec, nullptr);
  ASSERT_TRUE(vec->ptx);
  EXPECT_EQ(vec->ptx->global_loads.count(128), 1u) << "float4 loads are 128-bit";
  EXPECT_EQ(vec->ptx->global_loads.count(32), 0u);
  EXPECT_EQ(vec->ptx->global_stores.at(128), 1);
  ASSERT_TRUE(vec->occupancy);
  EXPECT_EQ(vec->occupancy->block_size, 512);
  EXPECT_EQ(vec->occupancy->block_size_source, BlockSizeSource::LaunchSite);

  const KernelStatic* shared = kernel_named(r, "with_shared");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->static_shared_bytes, 4096);
  ASSERT_TRUE(shared->occupancy);
  EXPECT_EQ(shared->occupancy->block_size, 1024);
  EXPECT_EQ(shared->occupancy->active_blocks_per_sm, 2);

  const KernelStatic* local = kernel_named(r, "local_array");
  ASSERT_NE(local, nullptr);
  ASSERT_TRUE(local->stack_frame_bytes);
  EXPECT_GE(*local->stack_frame_bytes, 1024) << "a 256-float array indexed at run time lives in local memory";
  ASSERT_TRUE(local->ptx);
  EXPECT_GT(local->ptx->local_loads, 0);
  EXPECT_GT(local->ptx->local_stores, 0);
  ASSERT_TRUE(local->occupancy);
  EXPECT_EQ(local->occupancy->block_size_source, BlockSizeSource::Assumed);
  EXPECT_EQ(local->occupancy->block_size, 256);

  if (r.report.sass_available) {
    ASSERT_TRUE(vec->sass);
    EXPECT_GE(vec->sass->global_loads.count(128), 1u) << "LDG.E.128";
    ASSERT_TRUE(scalar->sass);
    EXPECT_GE(scalar->sass->global_loads.count(32), 1u);
    ASSERT_TRUE(local->sass);
    EXPECT_GT(local->sass->local_loads + local->sass->local_stores, 0) << "LDL/STL";
  } else {
    EXPECT_FALSE(vec->sass) << "no SASS facts without cuobjdump";
  }
}

TEST_F(KernelFactsTest, RegisterPressureSpills) {
  HONE_REQUIRE_NVCC();
  // 64 live accumulators in a 32-register budget must spill.
  auto path = write("spill.cu", R"(#include "hone.h"
__global__ void __launch_bounds__(1024, 2) pressure(const float* x, float* y, int n) {
  float acc[64];
#pragma unroll
  for (int j = 0; j < 64; ++j) acc[j] = x[threadIdx.x + j * n];
  for (int it = 0; it < n; ++it) {
#pragma unroll
    for (int j = 0; j < 64; ++j) acc[j] = acc[j] * acc[(j + 1) & 63] + x[it];
  }
  float s = 0;
#pragma unroll
  for (int j = 0; j < 64; ++j) s += acc[j];
  y[threadIdx.x] = s;
}
void forward(hone::In<float> x, hone::Out<float> y, hone::Stream s) { pressure<<<1, 1024, 0, s>>>(x.data(), y.data(), 4); }
)");
  BuildResult r = build(path);
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error;
  ASSERT_EQ(r.report.kernels.size(), 1u);
  const KernelStatic& k = r.report.kernels[0];
  ASSERT_TRUE(k.registers && k.spill_store_bytes && k.spill_load_bytes);
  EXPECT_LE(*k.registers, 32);
  EXPECT_GT(*k.spill_store_bytes, 0);
  EXPECT_GT(*k.spill_load_bytes, 0);
  ASSERT_TRUE(k.occupancy);
  EXPECT_EQ(k.occupancy->block_size, 1024);
  EXPECT_EQ(k.occupancy->active_blocks_per_sm, 2);
}

TEST_F(KernelFactsTest, TensorCoreInstructionsInPtx) {
  HONE_REQUIRE_NVCC();
  auto path = write("wmma.cu", R"(#include "hone.h"
#include <mma.h>
using namespace nvcuda;
__global__ void tc(const half* a, const half* b, float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
void forward(hone::In<__half> a, hone::In<__half> b, hone::Out<float> c, hone::Stream s) {
  tc<<<1, 32, 0, s>>>(a.data(), b.data(), c.data());
}
)");
  BuildResult r = build(path);
  ASSERT_EQ(r.outcome, BuildOutcome::Built) << r.error;
  ASSERT_EQ(r.report.kernels.size(), 1u);
  const KernelStatic& k = r.report.kernels[0];
  ASSERT_TRUE(k.ptx);
  EXPECT_TRUE(k.ptx->tensor_core);
  ASSERT_FALSE(k.ptx->tensor_core_instructions.empty());
  EXPECT_EQ(k.ptx->tensor_core_instructions[0].rfind("wmma.mma.sync", 0), 0u) << k.ptx->tensor_core_instructions[0];
  if (r.report.sass_available) {
    ASSERT_TRUE(k.sass);
    EXPECT_TRUE(k.sass->tensor_core) << "HMMA in the SASS";
  }
}

// The SASS reader's instruction classes, on text laid out as `cuobjdump -sass` prints it (the real
// tool runs in the tests above on the GPU machine; it does not exist here).
TEST(SassFacts, ClassifiesWidthsLocalAndTensorCoreInstructions) {
  const char* sass = R"sass(
	code for sm_90
		Function : _Z4copyPK6float4PS_
	.headerflags	@"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                        /* 0x00000a00ff017b82 */
        /*0070*/              @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;              /* 0x0000000402048981 */
        /*0080*/                   LDG.E.U8.CONSTANT R9, desc[UR4][R2.64] ;      /* 0x0000000402097981 */
        /*0090*/                   STG.E.128 desc[UR4][R6.64], R4 ;              /* 0x0000000406007986 */
        /*00a0*/                   STL.64 [R1], R4 ;                             /* 0x0000000401007387 */
        /*00b0*/                   LDL R8, [R1+0x4] ;                            /* 0x0000040001087983 */
        /*00c0*/                   HMMA.16816.F32 R12, R4, R8, R12 ;            /* 0x000000080404723c */
        /*00d0*/                   EXIT ;                                        /* 0x000000000000794d */
		Function : _Z6scalarPfS_
        /*0000*/                   LDG.E R2, desc[UR4][R2.64] ;                  /* 0x0000000402027981 */
        /*0010*/                   STG.E desc[UR4][R4.64], R2 ;                  /* 0x0000000204007986 */
)sass";
  auto facts = parse_sass_facts(sass);
  ASSERT_EQ(facts.size(), 2u);
  const auto& copy = facts.at("_Z4copyPK6float4PS_");
  EXPECT_EQ(copy.global_loads, (protocol::WidthCounts{{8, 1}, {128, 1}}));
  EXPECT_EQ(copy.global_stores, (protocol::WidthCounts{{128, 1}}));
  EXPECT_EQ(copy.local_loads, 1);
  EXPECT_EQ(copy.local_stores, 1);
  EXPECT_TRUE(copy.tensor_core);
  EXPECT_EQ(copy.tensor_core_instructions, (std::vector<std::string>{"HMMA.16816.F32"}));
  const auto& scalar = facts.at("_Z6scalarPfS_");
  EXPECT_EQ(scalar.global_loads, (protocol::WidthCounts{{32, 1}}));
  EXPECT_FALSE(scalar.tensor_core);
}

TEST(Occupancy, MatchesTheCalculatorOnKnownCases) {
  auto h100 = arch_limits("sm_90a");
  ASSERT_TRUE(h100);
  // 32 registers, 256 threads: registers allow 64 warps, warps allow 8 blocks -> 100%.
  auto a = theoretical_occupancy(*h100, 32, 0, 256, BlockSizeSource::Assumed);
  EXPECT_EQ(a.active_blocks_per_sm, 8);
  EXPECT_EQ(a.occupancy_pct, 100.0);
  // 128 registers, 256 threads: 4096 regs per warp -> 4 warps per sub-partition -> 16 warps -> 2 blocks.
  auto b = theoretical_occupancy(*h100, 128, 0, 256, BlockSizeSource::LaunchSite);
  EXPECT_EQ(b.active_blocks_per_sm, 2);
  EXPECT_EQ(b.active_warps_per_sm, 16);
  EXPECT_EQ(b.occupancy_pct, 25.0);
  EXPECT_EQ(b.limited_by, OccupancyLimit::Registers);
  // 100 KB of shared memory per block: 228 KB / (100 KB + 1 KB reserved) -> 2 blocks.
  auto c = theoretical_occupancy(*h100, 16, 100 * 1024, 128, BlockSizeSource::LaunchBounds);
  EXPECT_EQ(c.active_blocks_per_sm, 2);
  EXPECT_EQ(c.limited_by, OccupancyLimit::SharedMemory);
  // Tiny blocks hit the 32-blocks-per-SM limit.
  auto d = theoretical_occupancy(*h100, 16, 0, 32, BlockSizeSource::Assumed);
  EXPECT_EQ(d.active_blocks_per_sm, 32);
  EXPECT_EQ(d.limited_by, OccupancyLimit::Blocks);
  EXPECT_EQ(d.occupancy_pct, 50.0);
  // Ada has 48 warps per SM.
  auto ada = arch_limits("sm_89");
  ASSERT_TRUE(ada);
  EXPECT_NEAR(theoretical_occupancy(*ada, 32, 0, 1024, BlockSizeSource::Assumed).occupancy_pct, 200.0 / 3, 1e-9);
  EXPECT_FALSE(arch_limits("sm_20"));
  EXPECT_FALSE(arch_limits("gfx90a"));
  ASSERT_TRUE(arch_limits("sm_100a"));
  EXPECT_EQ(arch_limits("sm_120")->max_warps_per_sm, 48);
}

}  // namespace
}  // namespace hone::toolchain::testing
