// hone: task=relu.py
// ReLU, torch form for CUDA: allocates its output and launches on PyTorch's current stream.
#include <c10/cuda/CUDAStream.h>
#include <torch/extension.h>

#include <algorithm>

__global__ void relu_torch_kernel(const float* __restrict__ x, float* __restrict__ out, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = fmaxf(x[i], 0.f);
}

torch::Tensor forward(torch::Tensor x) {
  TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "relu: x must be a float32 CUDA tensor");
  torch::Tensor input = x.contiguous();
  torch::Tensor out = torch::empty_like(input);
  const int64_t n = input.numel();
  if (n == 0) return out;
  constexpr int threads = 256;
  const int blocks = static_cast<int>(std::min<int64_t>((n + threads - 1) / threads, 65535));
  relu_torch_kernel<<<blocks, threads, 0, c10::cuda::getCurrentCUDAStream()>>>(input.data_ptr<float>(),
                                                                              out.data_ptr<float>(), n);
  return out;
}
