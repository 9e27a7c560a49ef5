"""The timing stage of a check: set up before the candidate is loaded (its input sets and output
slots shared with the candidate process), so that a runner which times the null form until a
load (hone-runner) measures the loop's own cost in the very process the candidate then runs in;
other runners get a clean process of the same kind for it. Measured after correctness. The null
loop's cost is reused for the same buffers for a while (hone_worker/bounds.py)."""
from typing import Callable, Dict, List, Optional

import torch

from . import bounds
from .candidate_session import CandidateSession, Deadline
from .channel import log
from .correctness import output_tolerances
from .devices import Device, release_cached_memory
from .exchange import SharedMemory
from .faults import CandidateFailure
from .instance import build_instance, clone_args, run_reference
from .policy import Policy
from .sessions import null_session
from .signature import Signature
from .task import Task
from .timed_checks import SlotChecker
from .timed_runs import Outcome, TimedRun, outputs_bytes
from .variation import InputSets, pool_size

PRELOAD_NULL_RUNNERS = ("native",)  # runners whose forward is the null form until a load


class TimingStage:
    """One check's timing; owned by the check on the judge's main thread."""

    def __init__(self, task: Task, device: Device, session: CandidateSession, memory: SharedMemory,
                 signature: Signature, raw: bool, policy: Policy, deadline: Deadline,
                 progress: Callable[[str], None], model_seed: Optional[int] = None) -> None:
        self.session, self.memory, self.device, self.deadline = session, memory, device, deadline
        seed = policy.seeds[0]
        instance = build_instance(task, device, seed, model_seed)
        outputs = [(getattr(torch, o.dtype), o.shape) for o in signature.outputs]
        sets = InputSets(task, device, instance.inputs, pool_size(instance.inputs, device, outputs_bytes(outputs)), seed)
        checker = SlotChecker(lambda inputs: run_reference(instance, inputs), output_tolerances(task, signature, policy),
                              raw, policy.verify_ms, policy.spot_checks)
        self.run = TimedRun(session, memory, device, sets, instance.inputs + ([] if model_seed is not None else clone_args(instance.params)),
                            len(instance.inputs), outputs, policy, checker, progress)
        instance.inputs = []  # in the timed buffers now; the checker passes every call's own inputs
        release_cached_memory()  # for the runner, which cannot use torch's cache
        self._costs: Dict[str, bounds.LoopCost] = {}
        self._nulls: List[CandidateSession] = []

    def modes(self) -> List[str]:
        return ["call", "device"] if self.device.is_cuda else ["call"]

    def measure_null_before_load(self) -> None:
        """The null loop in the candidate's own process, before its code is loaded (when its
        runner allows it and no recent measurement of these buffers exists)."""
        if self.session.kind not in PRELOAD_NULL_RUNNERS:
            return
        for mode in self.modes():
            key = self.run.cost_key(self.session.kind, mode)
            if bounds.LOOP_COSTS.get(key) is None:
                cost = self.run.null_cost(self.session, mode)
                bounds.LOOP_COSTS.put(key, cost)
                self._costs[mode] = cost

    def measure(self) -> Outcome:
        try:
            with torch.no_grad():
                return self.run.run(self._loop_cost)
        finally:
            for clean in self._nulls:
                clean.end()

    def _loop_cost(self, mode: str, fresh: bool = False) -> Optional[bounds.LoopCost]:
        """The null loop's cost for `mode`: this check's, else a recent one for these buffers,
        else measured in a clean process; `fresh`: measured again now in a clean process."""
        if mode in self._costs and not fresh:
            return self._costs[mode]
        key = self.run.cost_key(self.session.kind, mode)
        cost = None if fresh else bounds.LOOP_COSTS.get(key)
        if cost is None:
            try:
                if not self._nulls:
                    clean = null_session(self.session.kind, self.device, self.memory, self.deadline)
                    if clean is None:
                        return None
                    self._nulls.append(clean)
                cost = self.run.null_cost(self._nulls[0], mode)
            except CandidateFailure as failure:  # a clean process failed: hone's problem, not the candidate's
                log(f"the null loop could not be timed ({failure.reason}); {mode} time is not bounded")
                return None
            bounds.LOOP_COSTS.put(key, cost)
        self._costs[mode] = cost
        return cost
