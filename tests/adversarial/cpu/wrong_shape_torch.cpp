// hone: task=../../../tasks/relu.py
// Cheat: returns the right values in the wrong shape (flattened).
#include <torch/extension.h>

torch::Tensor forward(torch::Tensor x) {
  torch::Tensor flat = x.contiguous().view({-1});
  torch::Tensor out = torch::empty_like(flat);
  const float* in = flat.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < flat.numel(); ++i) o[i] = in[i] > 0.f ? in[i] : 0.f;
  return out;
}
