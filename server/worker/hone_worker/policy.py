"""The request's `policy`: how hard a check checks and how long it times (protocol/WORKER.md)."""
from dataclasses import dataclass, field
from typing import List, Optional

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
    max_reps: int = 300  # calls of a pass at most (1000 before 2026-12-03; fewer for check latency, issue 13)
    spot_checks: int = 3
    records: bool = True  # profile one call: library ops, kernel records, work escaping the timer
    settle_ms: Optional[float] = None  # the most the clocks' settling may take; None: by device
    verify_ms: float = 75.0  # how long recomputing the reference on timed calls' inputs may take

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
