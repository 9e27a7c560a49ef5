// A CUDA ReLU with a type error on line 6 (a float* bound to an int*): nvcc reports it on any
// machine, GPU or not, and `hone check` must say so before it says the run needs a GPU.
// hone: task=relu_small.py
#include "hone.h"

__global__ void relu_kernel(const float* x, float* out, int64_t n) { int* wrong = out; (void)wrong; (void)x; (void)n; }

void forward(hone::In<float> x, hone::Out<float> out, hone::Stream stream) {
  relu_kernel<<<1, 1, 0, stream>>>(x.data(), out.data(), x.numel());
}
