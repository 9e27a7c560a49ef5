# An elementwise task whose call takes about a millisecond on the CPU: long enough that a machine
# made busy on purpose (tests/eval/busy_machine_test.cpp) preempts many timed calls.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(1024, 1024)]


def get_init_inputs():
    return []
