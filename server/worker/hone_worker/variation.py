"""Input variation between timed calls, so that every timed call is the verified computation and
not a replay: a few pre-generated input sets (the judge's private tensors), and for each timed
call a schedule entry naming the set the runner copies into the timed buffers and, in "mix" mode,
a few rows it then takes from other sets. The judge can rebuild the exact input of any timed
call from its private sets and the entry, and recompute the reference on it."""
import random
from dataclasses import dataclass
from typing import List

import torch

from .devices import Device
from .instance import build_inputs
from .task import Task

POOL_SEED_BASE = 1_000_003  # input sets for timing come from seeds apart from the correctness seeds
MIXED_ROWS = 2  # rows taken from another set per tensor per call, in "mix" mode


@dataclass(frozen=True)
class Entry:
    """One timed call's input: set `set`, then (argument, row, donor set) rows."""

    set: int
    rows: tuple

    def to_json(self, slot: int) -> dict:
        return {"set": self.set, "slot": slot, "rows": [list(r) for r in self.rows]}


class InputSets:
    """The sets of one timing run, on the device; owned by one check on the main thread.
    `targets` are the timed call's input values (the first set)."""

    def __init__(self, task: Task, device: Device, targets: list, pool_size: int, seed: int) -> None:
        self.mode = task.timing_variation
        self.tensor_indices = [i for i, t in enumerate(targets) if isinstance(t, torch.Tensor)]
        self.rng = random.Random(seed)
        self.sets: List[list] = []
        for k in range(pool_size if self.tensor_indices else 0):
            candidate = build_inputs(task, device, POOL_SEED_BASE + seed * 101 + k)
            if all(candidate[i].shape == targets[i].shape and candidate[i].dtype == targets[i].dtype
                   for i in self.tensor_indices):
                self.sets.append(candidate)
        if not self.sets:
            self.sets.append(list(targets))
        self._last = -1

    def draw(self) -> Entry:
        """The next timed call's input: a set other than the last one, plus mixed rows."""
        choices = [k for k in range(len(self.sets)) if k != self._last] or [0]
        self._last = k = self.rng.choice(choices)
        rows = []
        if self.mode == "mix" and len(self.sets) > 1:
            for i in self.tensor_indices:
                t = self.sets[k][i]
                if t.dim() == 0 or t.shape[0] < 2:
                    continue
                for _ in range(MIXED_ROWS):
                    donor = self.rng.choice([d for d in range(len(self.sets)) if d != k])
                    rows.append((i, self.rng.randrange(t.shape[0]), donor))
        return Entry(k, tuple(rows))

    @torch.no_grad()
    def rebuild(self, entry: Entry) -> list:
        """The exact input values of a timed call, rebuilt from the private sets."""
        values = [v.clone() if isinstance(v, torch.Tensor) else v for v in self.sets[entry.set]]
        for i, row, donor in entry.rows:
            values[i][row].copy_(self.sets[donor][i][row])
        return values


def pool_size(targets: list, device: Device, wanted: int = 3) -> int:
    """How many input sets to keep: `wanted`, fewer when the device is short of memory."""
    input_bytes = sum(t.numel() * t.element_size() for t in targets if isinstance(t, torch.Tensor))
    if input_bytes == 0 or not device.is_cuda:
        return wanted
    free, _ = torch.cuda.mem_get_info(device.index)
    fitting = int(free * 0.25 // input_bytes)
    return max(2, min(wanted, fitting))
