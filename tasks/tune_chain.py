# A chain of elementwise ops: out = clamp(x * 1.5 + 0.25, -2, 2) ** 2 + x. Eager PyTorch runs it
# as five operators, each a full pass over memory into a freshly allocated tensor; a kernel that
# fuses the chain reads x once and writes out once (the CPU example for hone's built-in tuner).
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = clamp(x * 1.5 + 0.25, -2, 2) ** 2 + x, elementwise, for x of shape (rows, cols)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * 1.5
        y = y + 0.25
        y = torch.clamp(y, -2.0, 2.0)
        y = y * y
        return y + x


rows = 4096
cols = 1024


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
