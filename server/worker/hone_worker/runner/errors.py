"""Errors a runner answers with (protocol/WORKER.md, candidate protocol): every failure of an op
is one `{"ok": false, "error": {...}}` reply of a KIND, never a dead protocol."""
import re
import traceback
from typing import Optional

KINDS = ("bad_request", "load_error", "forward_error", "launch_error", "cuda_error", "unsupported", "internal")
_CUDA_ERROR_NAME = re.compile(r"\b(cudaError[A-Za-z]+|CUDA_ERROR_[A-Z_]+)")


class RunnerError(Exception):
    """An op's failure; `kind` is one of KINDS."""

    def __init__(self, kind: str, message: str, tb: Optional[str] = None, cuda_error: Optional[str] = None) -> None:
        assert kind in KINDS, kind
        super().__init__(message)
        self.kind, self.message, self.traceback, self.cuda_error = kind, message, tb, cuda_error

    def to_json(self) -> dict:
        out = {"kind": self.kind, "message": self.message}
        if self.cuda_error:
            out["cuda_error"] = self.cuda_error
        if self.traceback:
            out["traceback"] = self.traceback
        return out


def bad_request(message: str) -> RunnerError:
    return RunnerError("bad_request", message)


def unsupported(message: str) -> RunnerError:
    return RunnerError("unsupported", message)


def load_error(message: str, exc: Optional[BaseException] = None) -> RunnerError:
    return RunnerError("load_error", message, _format(exc) if exc else None)


def cuda_error_name(text: str) -> Optional[str]:
    """cudaErrorIllegalAddress (or CUDA_ERROR_...) named in an error message, if any."""
    match = _CUDA_ERROR_NAME.search(text)
    return match.group(1) if match else None


def candidate_failure(exc: BaseException, what: str, context_broken: bool) -> RunnerError:
    """What an exception raised by candidate code (or by the synchronize after it) is: a sticky
    CUDA error when the context no longer works, else a forward_error (a launch_error as it was)."""
    if isinstance(exc, RunnerError):
        if context_broken and exc.kind in ("forward_error", "launch_error"):
            return RunnerError("cuda_error", exc.message, exc.traceback, exc.cuda_error or cuda_error_name(exc.message))
        return exc
    message = str(exc).strip() or type(exc).__name__
    text = f"{what} raised {type(exc).__name__}: {message.splitlines()[0]}"
    kind = "cuda_error" if context_broken else "forward_error"
    return RunnerError(kind, text, _format(exc), cuda_error_name(message))


def _format(exc: BaseException) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
