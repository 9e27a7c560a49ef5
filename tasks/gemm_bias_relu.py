# Fused GEMM + bias + ReLU: relu(x @ W^T + b) (a KernelBench level-2 style fusion, small shapes).
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = relu(linear(x)) with linear.weight of shape (out_features, in_features)."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x))


batch_size = 64
in_features = 256
out_features = 128


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
