"""The judge's checks of the timed calls, after each `time` op: every timed call wrote its own
output slot, which the judge copied out right after the reply; every copy is scanned for the
poison put there before the op, and the reference is recomputed on the exact input of every timed
call (rebuilt from the judge's private input sets) or, past a time budget, of a random sample drawn
after the reply (at least `spot_checks`, and always the last call)."""
import os
import random
import time
from typing import Callable, List, Optional, Sequence

import torch

from .compare import Tolerance, compare_outputs, output_label
from .faults import CandidateFailure
from .poison import allocator_poisoned, still_poisoned
from .variation import Entry, InputSets

Reference = Callable[[list], List[torch.Tensor]]  # rebuilt inputs -> expected outputs


class SlotChecker:
    """Verifies timed calls against `reference`; `raw`: the outputs were written by the kernel
    itself (else a torch-form result copied in, whose own allocations read as allocator poison).
    Owned by one timing run on the main thread."""

    def __init__(self, reference: Reference, tolerances: Sequence[Tolerance], raw: bool, budget_ms: float,
                 spot_checks: int) -> None:
        self.reference = reference
        self.tolerances = list(tolerances)
        self.raw = raw
        self.budget_s = budget_ms / 1000.0
        self.spot_checks = spot_checks
        self.rng = random.Random(os.urandom(16))  # drawn after the replies: nothing a candidate can predict
        self.spent_s = 0.0
        self.verified = 0
        self.scanned = 0

    def check(self, sets: InputSets, entries: Sequence[Entry], copies: Sequence[List[torch.Tensor]], first: int,
              total: int, blocks: Optional[Sequence[torch.Tensor]] = None) -> None:
        """Calls first+1 .. first+len(entries) of `total`; raises CandidateFailure (incorrect,
        check timed_calls_verified) for the first one that is wrong. `blocks` (optional): output o
        of every call stacked (blocks[o][k] is copies[k][o]), scanned for poison in one pass."""
        if blocks is None or self._any_poisoned(blocks):  # then find the first call that left poison
            for k, outputs in enumerate(copies):
                self._scan(outputs, first + k, total)
        self.scanned += len(copies)
        if not copies:
            return
        last = len(copies) - 1
        self._verify(sets, entries, copies, last, first, total)  # first: it also tells what one costs
        overwritten = [k for k in range(last) if entries[k].overwrite]  # always: the probe for aliased results
        for k in sorted(set(self._choose(last)) | set(overwritten)):
            self._verify(sets, entries, copies, k, first, total)

    def _verify(self, sets: InputSets, entries: Sequence[Entry], copies, k: int, first: int, total: int) -> None:
        started = time.perf_counter()
        expected = self.reference(sets.rebuild(entries[k]))
        comparison = compare_outputs(copies[k], expected, self.tolerances, raw_buffers=True,
                                     allocator_poison=not self.raw)
        self.spent_s += time.perf_counter() - started
        self.verified += 1
        if not comparison.passed:
            why = (" (hone overwrote this call's arguments after forward returned and before copying its result: a "
                   "result that is an argument's memory under another mapping shows the overwrite)"
                   if entries[k].overwrite else "")
            raise CandidateFailure("incorrect", f"timed call {first + k + 1} of {total} returned a wrong result "
                                   f"for the inputs it was given: {comparison.mismatch.message}{why}",
                                   check="timed_calls_verified")

    def _choose(self, count: int) -> List[int]:
        """Which of calls 0..count-1 also get the reference recomputed: all while the budget
        lasts, else a random sample as large as the budget allows (at least `spot_checks`)."""
        per_call = self.spent_s / max(1, self.verified)
        left = self.budget_s - self.spent_s
        affordable = int(left / per_call) if per_call > 0 and left > 0 else (count if left > 0 else 0)
        wanted = min(count, max(affordable, self.spot_checks))
        if wanted >= count:
            return list(range(count))
        return sorted(self.rng.sample(range(count), wanted))

    def _any_poisoned(self, blocks: Sequence[torch.Tensor]) -> bool:
        """Whether any element of any call's output still holds poison (one synchronisation)."""
        found = [self._unwritten(t).any() for t in blocks if _scanned(t)]
        return bool(torch.stack(found).any()) if found else False

    def _unwritten(self, t: torch.Tensor) -> torch.Tensor:
        """The elements of `t` that still hold poison (hone's, and the allocators' for the torch form)."""
        mask = still_poisoned(t)
        return mask if self.raw else mask | allocator_poisoned(t)

    def _scan(self, outputs: List[torch.Tensor], index: int, total: int) -> None:
        """Floating-point outputs that still hold poison were never written by that call."""
        for o, t in enumerate(outputs):
            if not _scanned(t):
                continue
            mask = self._unwritten(t)
            count = int(mask.sum())
            if count:
                flat = int(mask.reshape(-1).nonzero()[0])
                where = _index(flat, list(t.shape))
                label = output_label(o, len(outputs))
                raise CandidateFailure("incorrect", f"timed call {index + 1} of {total} left {label}"
                                       f"[{','.join(map(str, where))}] unwritten (it still holds the poison put there "
                                       f"before the call); {count} of {t.numel()} elements never written",
                                       check="timed_calls_verified")


def _scanned(t: torch.Tensor) -> bool:
    """Floating-point outputs with elements: the ones a poison pattern can tell unwritten."""
    return t.dtype.is_floating_point and t.numel() > 0


def _index(flat: int, shape: List[int]) -> List[int]:
    out = []
    for size in reversed(shape):
        out.append(flat % size)
        flat //= size
    return list(reversed(out))
