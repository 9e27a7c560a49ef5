# Matrix transpose made contiguous: out = x.T (the example for hone's built-in tuner: its kernels
# declare their block sizes as tunable, and the starting values are deliberately poor).
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = x.t().contiguous() for x of shape (rows, cols)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.t().contiguous()


rows = 1024
cols = 768


def get_inputs():
    return [torch.randn(rows, cols)]


def get_init_inputs():
    return []
