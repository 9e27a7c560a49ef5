// tests/cupti/ncu_workload.cpp: the 2^26-float vector add alone, for `ncu` to measure in
// scripts/gpu/profile.sh (hone's own number comes from cupti_gpu_tests). Exit 2 without a GPU.
#include <cstdio>

#include "gpu_kernels.h"

int main() {
  if (hone::cupti_test::gpu_count() == 0) {
    std::fprintf(stderr, "no CUDA GPU\n");
    return 2;
  }
  hone::cupti_test::vec_add(std::int64_t{1} << 26);
  hone::cupti_test::release_buffers();
  return 0;
}
