# A weak task in the manner of KernelBench level1/23_Softmax: a softmax over a long row has
# outputs far below KernelBench's 1e-2 tolerance, so an all-zeros kernel passes it. hone must
# flag such a task (the reference barely varies across seeds relative to the tolerance).
# Rows of 65536: the largest output of any plausible draw stays below 0.003. With rows of 16384
# it reached 0.0117 (> atol) for about one input set in 500, so a random-seed check of the
# all-zeros kernel failed now and then (the H200 run's engine path, seed 1346120067).
import torch
import torch.nn as nn

HONE_ATOL = 1e-2
HONE_RTOL = 1e-2


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 4
dim = 65536


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
