# Layer normalisation over the last dimension with a learned scale and shift
# (KernelBench level1/40_LayerNorm's operator, small shapes, and non-trivial affine parameters).
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = (x - mean) / sqrt(var + eps) * weight + bias over the last dimension."""

    def __init__(self, hidden: int):
        super().__init__()
        self.ln = nn.LayerNorm(hidden, eps=1e-5)
        with torch.no_grad():
            self.ln.weight.normal_(1.0, 0.2)
            self.ln.bias.normal_(0.0, 0.2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln(x)


batch_size = 16
tokens = 32
hidden = 512


def get_inputs():
    return [torch.randn(batch_size, tokens, hidden) * 2 + 0.5]


def get_init_inputs():
    return [hidden]
