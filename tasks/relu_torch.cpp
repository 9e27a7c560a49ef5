// hone: task=relu.py
// ReLU, torch form for the CPU device: the kernel allocates its output and returns it.
#include <torch/extension.h>

torch::Tensor forward(torch::Tensor x) {
  TORCH_CHECK(x.scalar_type() == torch::kFloat32, "relu: x must be float32");
  torch::Tensor input = x.contiguous();
  torch::Tensor out = torch::empty_like(input);
  const float* in = input.data_ptr<float>();
  float* o = out.data_ptr<float>();
  const int64_t n = input.numel();
  for (int64_t i = 0; i < n; ++i) o[i] = in[i] > 0.f ? in[i] : 0.f;
  return out;
}
