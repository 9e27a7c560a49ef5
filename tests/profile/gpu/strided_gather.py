# Every 8th float of a 2^27-float vector (KernelBench format): a kernel that reads it directly
# uses 4 bytes of every 32-byte sector (12.5% coalescing). Used by scripts/gpu/profile.sh.
import torch
import torch.nn as nn

N = 1 << 24
STRIDE = 8


class Model(nn.Module):
    def forward(self, x):
        return x[::STRIDE].contiguous()


def get_inputs():
    return [torch.randn(N * STRIDE)]


def get_init_inputs():
    return []
