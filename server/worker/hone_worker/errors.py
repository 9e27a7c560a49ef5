"""Errors the worker reports as protocol errors (bad_request, task_error, kernel_error,
unsupported), as opposed to a candidate's failures, which are results with a status."""
import traceback


class WorkerError(Exception):
    """A request that cannot be answered with a result; `code` is the protocol error code."""

    code = "internal"

    def __init__(self, message: str, tb: str = ""):
        super().__init__(message)
        self.message = message
        self.traceback = tb


class BadRequest(WorkerError):
    code = "bad_request"


class TaskError(WorkerError):
    """The reference cannot be loaded or run (no Model, get_inputs raises, ...)."""

    code = "task_error"


class KernelError(WorkerError):
    """The candidate library cannot be loaded or its ABI/signature does not match the task."""

    code = "kernel_error"


class Unsupported(WorkerError):
    """The request needs something this worker's torch or device does not have."""

    code = "unsupported"


def task_error_from(what: str, exc: BaseException) -> TaskError:
    """Wraps an exception raised by task code into a TaskError naming what failed."""
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return TaskError(f"{what} raised {type(exc).__name__}: {exc}", tb)
