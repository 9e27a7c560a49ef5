"""A small CPU task with weights and __init__ scalars, for KernelBench answers (ModelNew files)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, features: int, scale: float, use_bias: bool):
        super().__init__()
        self.lin = nn.Linear(features, features, bias=use_bias)
        self.scale = scale

    def forward(self, x):
        return torch.relu(self.lin(x)) * self.scale


def get_inputs():
    return [torch.randn(8, 16)]


def get_init_inputs():
    return [16, 2.0, True]
