"""Input variation between timed calls, so that every timed call is the verified computation and
not a replay: a few pre-generated input sets (the judge's private tensors), and for each timed
call a schedule entry naming the set the runner copies into the timed buffers and how it varies:
in the default "elements" mode every contiguous tensor input is made anew from all the sets,
each element from the set a hash of the call's own seed chooses (libhone_harness's hone_mix, the
same code in both runners and here), so no two calls share an input, as a whole or in any row: a
cache keyed by an input's content, or by its rows, never hits (a kernel that patched a cached
result where a few rows differed passed the older "mix" mode, which takes two rows of each input
from another set; non-contiguous inputs still vary so). "pool" uses whole sets only, for inputs
with invariants across elements such as symmetric matrices. The judge can rebuild the exact input
of any timed call from its private sets and the entry, and recompute the reference on it."""
import random
from dataclasses import dataclass, replace
from typing import List, Optional

import torch

from .devices import Device
from .instance import build_inputs
from .runner.harness import Harness, HarnessMissing, harness
from .task import Task

POOL_SEED_BASE = 1_000_003  # input sets for timing come from seeds apart from the correctness seeds
MIXED_ROWS = 2  # rows taken from another set per tensor per call, in "mix" mode (and for non-contiguous inputs)
MAX_MIX_SETS = 8  # hone_mix takes at most this many sets


@dataclass(frozen=True)
class Entry:
    """One timed call's input: set `set`, then (argument, row, donor set) rows; the `mixed`
    arguments made from every set by hone_mix with `seed`."""

    set: int
    rows: tuple
    mixed: tuple = ()
    seed: int = 0
    # The arguments overwritten after forward returns, before a runner that copies forward's result
    # copies it: a result that is an argument's memory under another mapping copies the overwrite.
    overwrite: bool = False

    def to_json(self, slot: int) -> dict:
        out = {"set": self.set, "slot": slot, "rows": [list(r) for r in self.rows]}
        if self.mixed:
            out["mix"] = {"seed": self.seed, "args": list(self.mixed)}
        if self.overwrite:
            out["overwrite_arguments"] = True
        return out


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
        # Inputs with an invariant across elements that a mix would break (the task's own inputs
        # keep it in every set) vary by whole sets (symmetric matrices) or by rows (sorted rows).
        sorted_rows = [i for i in self.tensor_indices if all(_sorted_rows(s[i]) for s in self.sets)]
        self.whole_only = tuple(i for i in self.tensor_indices if all(_symmetric(s[i]) for s in self.sets)
                                or (i in sorted_rows and targets[i].dim() == 1))  # a sorted vector's rows are elements
        self.keep_rows = tuple(i for i in sorted_rows if i not in self.whole_only)
        # Element mixing: every other contiguous tensor of two elements or more, when there are sets to mix.
        self.mixed = tuple(i for i in self.tensor_indices if targets[i].is_contiguous() and targets[i].numel() > 1
                           and i not in self.whole_only and i not in self.keep_rows) \
            if self.mode == "elements" and 1 < len(self.sets) <= MAX_MIX_SETS else ()
        self._harness: Optional[Harness] = self._load_harness() if self.mixed else None
        self._is_cuda = device.is_cuda

    def _load_harness(self) -> Harness:
        try:
            return harness()
        except HarnessMissing as exc:
            raise HarnessMissing(f"timing varies every input element by element with libhone_harness: {exc}") from None

    def draw(self) -> Entry:
        """The next timed call's input: a set other than the last one, its contiguous tensors mixed
        element by element from every set ("elements"), or mixed rows ("mix", and the other
        tensors in "elements")."""
        choices = [k for k in range(len(self.sets)) if k != self._last] or [0]
        self._last = k = self.rng.choice(choices)
        rows = []
        if self.mode in ("mix", "elements") and len(self.sets) > 1:
            for i in self.tensor_indices:
                t = self.sets[k][i]
                if i in self.mixed or i in self.whole_only or t.dim() == 0 or t.shape[0] < 2:
                    continue
                for _ in range(MIXED_ROWS):
                    donor = self.rng.choice([d for d in range(len(self.sets)) if d != k])
                    rows.append((i, self.rng.randrange(t.shape[0]), donor))
        return Entry(k, tuple(rows), self.mixed, self.rng.getrandbits(32) if self.mixed else 0)

    def overwrite_one(self, entries: List[Entry]) -> List[Entry]:
        """The op's entries with one, drawn at random, marked `overwrite` (its result is always verified)."""
        if not entries:
            return entries
        k = self.rng.randrange(len(entries))
        return entries[:k] + [replace(entries[k], overwrite=True)] + entries[k + 1:]

    @torch.no_grad()
    def rebuild(self, entry: Entry) -> list:
        """The exact input values of a timed call, rebuilt from the private sets (mixed elements by
        the same hone_mix the runners use, on the judge's device)."""
        values = [v.clone() if isinstance(v, torch.Tensor) else v for v in self.sets[entry.set]]
        for i, row, donor in entry.rows:
            values[i][row].copy_(self.sets[donor][i][row])
        for i in entry.mixed:
            t, sources = values[i], [s[i].data_ptr() for s in self.sets]
            if self._is_cuda:
                self._harness.mix(torch.cuda.current_stream(t.device).cuda_stream, t.data_ptr(), sources,
                                  t.element_size(), t.numel(), entry.seed)
            else:
                self._harness.host_mix(t.data_ptr(), sources, t.element_size(), t.numel(), entry.seed)
        return values


@torch.no_grad()
def _symmetric(t: torch.Tensor) -> bool:
    """A floating stack of square matrices equal to its own transpose (KernelBench's symmetric
    matmul inputs): mixing its elements, or rows, would break the symmetry honest kernels use."""
    return (t.is_floating_point() and t.dim() >= 2 and t.shape[-1] == t.shape[-2] and t.shape[-1] > 1
            and torch.equal(t, t.transpose(-1, -2)))


@torch.no_grad()
def _sorted_rows(t: torch.Tensor) -> bool:
    """Sorted along its last dimension (boundaries for searchsorted, lengths): rows keep that."""
    if t.dim() == 0 or t.shape[-1] < 2 or t.dtype == torch.bool or t.is_complex():
        return False
    return bool((t[..., 1:] >= t[..., :-1]).all())


# What one timing run holds on the device, in copies of the inputs' and the outputs' bytes, to
# choose how many input sets fit (pool_size): each set twice (the judge's private copy and its
# copy in the memory shared with the runner), the timed buffers and a verified call's rebuilt
# input, two output slots at least, the judge's copy of one and the reference's output while it
# verifies it; the runner's process needs about an output of its own beside them.
SET_COPIES, INPUT_COPIES, OUTPUT_COPIES = 2, 2, 5
PLANNED_SHARE = 0.6  # of the device's free memory a timing run plans for (allocator slack, the runner's workspace)


def pool_size(targets: list, device: Device, output_bytes: int = 0, wanted: int = 3) -> int:
    """How many input sets to keep: `wanted`, fewer (two at least) when the whole timing run's
    copies would not fit the device's free memory with them. A KernelBench level-1 task with 6 GiB
    of input and of output had the judge hold 61 GiB of an 80 GiB H100 with three sets, and its
    runner ran out of memory; with two it still does (H100, 2026-12-05 night: docs/gpu-runs.md),
    so such tasks time on a larger card only."""
    input_bytes = sum(t.numel() * t.element_size() for t in targets if isinstance(t, torch.Tensor))
    if input_bytes == 0 or not device.is_cuda:
        return wanted
    free, _ = torch.cuda.mem_get_info(device.index)
    return sets_fitting(free, input_bytes, output_bytes, wanted)


def sets_fitting(free: int, input_bytes: int, output_bytes: int, wanted: int = 3) -> int:
    """pool_size's rule on numbers: the sets whose copies fit PLANNED_SHARE of `free` bytes beside
    the run's other copies, between 2 and `wanted`."""
    room = free * PLANNED_SHARE - INPUT_COPIES * input_bytes - OUTPUT_COPIES * output_bytes
    return int(max(2, min(wanted, room // (SET_COPIES * max(1, input_bytes)))))
