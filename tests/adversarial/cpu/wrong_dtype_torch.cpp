// hone: task=../../../tasks/relu.py
// Cheat: returns the right values as float64 (a harness that casts before comparing passes it).
#include <torch/extension.h>

torch::Tensor forward(torch::Tensor x) {
  torch::Tensor input = x.contiguous();
  torch::Tensor out = torch::empty(input.sizes(), input.options().dtype(torch::kFloat64));
  const float* in = input.data_ptr<float>();
  double* o = out.data_ptr<double>();
  for (int64_t i = 0; i < input.numel(); ++i) o[i] = in[i] > 0.f ? in[i] : 0.f;
  return out;
}
