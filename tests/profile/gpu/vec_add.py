# Vector add of 2^26 floats (KernelBench format): the profiler's known answer is ~805 MB of DRAM
# traffic (12 bytes per element) for one call. Used by scripts/gpu/profile.sh.
import torch
import torch.nn as nn

N = 1 << 26


class Model(nn.Module):
    def forward(self, a, b):
        return a + b


def get_inputs():
    return [torch.randn(N), torch.randn(N)]


def get_init_inputs():
    return []
