// hone: task=../../../tasks/relu.py
// Cheat, torch form: launches on a stream from PyTorch's pool without making it wait for, or
// making the caller's stream wait on it.
#include <c10/cuda/CUDAStream.h>
#include <torch/extension.h>

__global__ void relu_side_kernel(const float* x, float* out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fmaxf(x[i], 0.f);
}

torch::Tensor forward(torch::Tensor x) {
  torch::Tensor input = x.contiguous();
  torch::Tensor out = torch::empty_like(input);
  const int64_t n = input.numel();
  c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool();
  relu_side_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, side.stream()>>>(input.data_ptr<float>(),
                                                                                      out.data_ptr<float>(), n);
  return out;
}
