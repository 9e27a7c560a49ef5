"""Typed results of the check stages (flags, named policy checks, trials), each with
to_json in the shape of protocol/schema/verdict.schema.json."""
from dataclasses import dataclass
from typing import Dict, Optional

from .compare import Mismatch


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
