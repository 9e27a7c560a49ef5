# KernelBench level1/19_ReLU with small shapes: its inputs come from torch.rand, all positive, so
# relu(x) == x and an output that is the input itself, or stale memory holding the reference's
# result, would pass a value comparison.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


batch_size = 64
dim = 4096


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
