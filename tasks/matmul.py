# Matrix multiplication C = A @ B (KernelBench level1/2_Standard_matrix_multiplication_, small shapes).
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B with A of shape (M, K) and B of shape (K, N)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


M = 128
K = 256
N = 192


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
