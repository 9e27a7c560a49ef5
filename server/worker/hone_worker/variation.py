"""Input variation between timed calls, so that every timed call is the verified computation and
not a replay: before each call, the timed input buffers receive one of a few pre-generated input
sets (chosen at random) and, in "mix" mode, a few rows taken from other sets."""
import random
from typing import List

import torch

from .devices import Device
from .instance import build_inputs
from .task import Task

POOL_SEED_BASE = 1_000_003  # input sets for timing come from seeds apart from the correctness seeds
MIXED_ROWS = 2  # rows taken from another set per tensor per call, in "mix" mode


class InputVariation:
    """Owned by one timing run on the main thread; `targets` are the tensors the calls read."""

    def __init__(self, task: Task, device: Device, targets: list, pool_size: int, seed: int) -> None:
        self.targets = targets
        self.mode = task.timing_variation
        self.tensor_indices = [i for i, t in enumerate(targets) if isinstance(t, torch.Tensor)]
        self.rng = random.Random(seed)
        self.pool: List[list] = []
        for k in range(pool_size if self.tensor_indices else 0):
            candidate = build_inputs(task, device, POOL_SEED_BASE + seed * 101 + k)
            if all(candidate[i].shape == targets[i].shape and candidate[i].dtype == targets[i].dtype
                   for i in self.tensor_indices):
                self.pool.append(candidate)
        self.last = -1

    @property
    def sets(self) -> int:
        return len(self.pool)

    @torch.no_grad()
    def apply(self) -> None:
        """Writes new contents into the target buffers (outside the timed region)."""
        if not self.pool:
            return
        choices = [k for k in range(len(self.pool)) if k != self.last] or [0]
        self.last = self.rng.choice(choices)
        source = self.pool[self.last]
        for i in self.tensor_indices:
            self.targets[i].copy_(source[i])
        if self.mode != "mix" or len(self.pool) < 2:
            return
        for i in self.tensor_indices:
            t = self.targets[i]
            if t.dim() == 0 or t.shape[0] < 2:
                continue
            for _ in range(MIXED_ROWS):
                donor = self.pool[self.rng.choice([k for k in range(len(self.pool)) if k != self.last])]
                row = self.rng.randrange(t.shape[0])
                t[row].copy_(donor[i][row])


def pool_size(targets: list, device: Device, wanted: int = 3) -> int:
    """How many input sets to keep: `wanted`, fewer when the device is short of memory."""
    input_bytes = sum(t.numel() * t.element_size() for t in targets if isinstance(t, torch.Tensor))
    if input_bytes == 0 or not device.is_cuda:
        return wanted
    free, _ = torch.cuda.mem_get_info(device.index)
    fitting = int(free * 0.5 // input_bytes)
    return max(2, min(wanted, fitting))
