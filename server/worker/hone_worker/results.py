"""Typed results of the check stages (policy, flags, named policy checks, trials), each with
to_json in the shape of protocol/schema/verdict.schema.json."""
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .compare import Mismatch
from .errors import BadRequest


@dataclass(frozen=True)
class Policy:
    """The request's `policy`: how hard to check and how long to time."""

    seeds: List[int] = field(default_factory=lambda: [1, 2, 3])
    atol: Optional[float] = None
    rtol: Optional[float] = None
    timing: bool = True
    warmup_ms: float = 25.0
    rep_ms: float = 100.0
    min_reps: int = 10
    max_reps: int = 1000
    spot_checks: int = 3
    records: bool = True  # profile one call: library ops, kernel records, work escaping the timer
    settle_ms: Optional[float] = None  # the most the clocks' settling may take; None: by device
    verify_ms: float = 300.0  # how long recomputing the reference on timed calls' inputs may take

    @staticmethod
    def from_params(params) -> "Policy":
        params = params or {}
        if not isinstance(params, dict):
            raise BadRequest("params.policy must be an object")
        known = Policy.__dataclass_fields__
        unknown = sorted(set(params) - set(known))
        if unknown:
            raise BadRequest(f"unknown policy field(s): {', '.join(unknown)}")
        values = {k: v for k, v in params.items() if v is not None or k in ("atol", "rtol", "settle_ms")}
        policy = Policy(**values)
        if not isinstance(policy.seeds, list) or not policy.seeds or not all(isinstance(s, int) for s in policy.seeds):
            raise BadRequest("policy.seeds must be a non-empty list of integers")
        if len(set(policy.seeds)) != len(policy.seeds):
            raise BadRequest("policy.seeds must be distinct")
        for name in ("atol", "rtol"):
            value = getattr(policy, name)
            if value is not None and (not isinstance(value, (int, float)) or value < 0):
                raise BadRequest(f"policy.{name} must be a non-negative number or null")
        if policy.settle_ms is not None and (not isinstance(policy.settle_ms, (int, float)) or policy.settle_ms < 0):
            raise BadRequest("policy.settle_ms must be a non-negative number or null")
        for name in ("warmup_ms", "rep_ms", "verify_ms"):
            if not isinstance(getattr(policy, name), (int, float)) or getattr(policy, name) < 0:
                raise BadRequest(f"policy.{name} must be a non-negative number")
        for name in ("min_reps", "max_reps", "spot_checks"):
            if not isinstance(getattr(policy, name), int) or getattr(policy, name) < 0:
                raise BadRequest(f"policy.{name} must be a non-negative integer")
        if policy.min_reps > policy.max_reps or policy.max_reps < 1:
            raise BadRequest("policy.max_reps must be at least 1 and at least min_reps")
        return policy


@dataclass(frozen=True)
class Flag:
    """Passed, but not silently clean: something the user must know about the result."""

    id: str
    message: str

    def to_json(self) -> dict:
        return {"id": self.id, "message": self.message}


class Checks:
    """The named policy checks and whether each passed (correctness.checks in the verdict)."""

    def __init__(self) -> None:
        self._results: Dict[str, bool] = {}

    def passed(self, name: str) -> None:
        self._results.setdefault(name, True)

    def failed(self, name: str) -> None:
        self._results[name] = False

    def to_json(self) -> Dict[str, bool]:
        return dict(self._results)


@dataclass
class Trial:
    seed: int
    passed: bool
    max_abs_error: Optional[float] = None
    max_rel_error: Optional[float] = None
    mismatch: Optional[Mismatch] = None

    def to_json(self) -> dict:
        out = {"seed": self.seed, "passed": self.passed, "max_abs_error": self.max_abs_error,
               "max_rel_error": self.max_rel_error}
        if self.mismatch is not None:
            out["mismatch"] = self.mismatch.to_json()
        return out
