# A load_inline answer that does not compile: hone's verdict is a compile_error at line 12.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = """
#include <torch/extension.h>

torch::Tensor relu_forward(torch::Tensor x) {
    auto out = torch::empty_like(x);
    const float* in = x.data_ptr<float>();
    float* o = out.data_ptr<floatt>();
    for (int64_t i = 0; i < x.numel(); ++i) o[i] = in[i] > 0.f ? in[i] : 0.f;
    return out;
}
"""

relu_module = load_inline(name="relu_bad", cpp_sources=relu_source, functions=["relu_forward"])


class ModelNew(nn.Module):
    def forward(self, x):
        return relu_module.relu_forward(x)
