// tests/cupti/gpu_kernels.h: CUDA kernels of known work for the CUPTI tests on a GPU (vector add,
// FMA loop, strided gather, register-heavy, accumulate, and the triggers of the bank-conflict,
// divergence, local-memory, tensor-core and small-grid rules), launched through plain C++ functions.
// Each launcher allocates what it needs once, launches on the default stream and synchronises.
#pragma once

#include <cstdint>
#include <string>

namespace hone::cupti_test {

// Number of CUDA devices; 0 when there is no GPU or driver (never throws).
int gpu_count();
// The current device's properties, named as the eval worker's hello names them.
struct DeviceProps {
  int index = 0;
  std::string name, arch;
  int sm_count = 0, max_threads_per_sm = 0, registers_per_sm = 0, memory_clock_khz = 0, memory_bus_bits = 0, sm_clock_khz = 0;
  std::int64_t l2_bytes = 0, memory_bytes = 0, shared_bytes_per_sm = 0;
};
DeviceProps device_props();

void vec_add(std::int64_t n);                   // c = a + b over n floats: 12 n compulsory DRAM bytes
void fma_loop(int threads, int iterations);     // exactly threads x iterations FFMA
void strided_gather(std::int64_t n, int stride);  // out[i] = in[i * stride]: one float per 32-byte sector at stride 8
int register_heavy(int blocks);                 // 256-thread blocks, many live registers; returns registers/thread
float accumulate_once();                        // y += 1 on a zeroed y, returns y after the launch
void transpose_naive(int n);                    // n x n floats through an unpadded 32x32 shared tile (bank conflicts)
void divergent_local(int n);                    // per-lane loop trip counts (divergence) over a local-memory array
void matmul_bf16_naive(int m, int n, int k);    // bf16 matmul with fp32 FMA on (m/16)(n/16) blocks of 16x16
void release_buffers();

// The kernel prologue's test (prologue_test.cpp): a stream of its own; one-thread kernels named
// "prologue_work" (launched through the runtime, <<<>>>, or through the driver, cuLaunchKernel) and
// "prologue_mark" (the prologue's own, through the runtime; returns the launch's cudaError_t).
void* new_stream();
void delete_stream(void* stream);
void work_by_runtime(void* stream);
void work_by_driver(void* stream);
void work_by_launch_api(void* stream);  // cudaLaunchKernel, the runtime's launch function
int mark_by_runtime(void* stream);
void synchronize_device();

}  // namespace hone::cupti_test
