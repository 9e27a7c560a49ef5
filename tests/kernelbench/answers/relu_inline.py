# A KernelBench answer for relu.py whose C++ is built by load_inline (cpp_sources only: a CPU
# extension), as KernelBench's CPU-less prompt examples look: hone builds it, not torch's JIT.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = """
#include <torch/extension.h>

torch::Tensor relu_forward(torch::Tensor x) {
    auto out = torch::empty_like(x);
    const float* in = x.data_ptr<float>();
    float* o = out.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i) o[i] = in[i] > 0.f ? in[i] : 0.f;
    return out;
}
"""

relu_module = load_inline(
    name="relu_inline",
    cpp_sources=relu_source,
    functions=["relu_forward"],
    extra_cflags=[""],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.relu = relu_module

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.relu.relu_forward(x)
