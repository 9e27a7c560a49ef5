# Softmax over the last dimension (KernelBench level1/23_Softmax with small shapes).
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = softmax(x, dim=1) for x of shape (batch, dim)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 64
dim = 1024


def get_inputs():
    return [torch.randn(batch_size, dim) * 3]


def get_init_inputs():
    return []
