"""The worker's method table: protocol method name -> handler(params, request) -> result dict.
Handlers run on the main thread, one request at a time; they raise WorkerError subclasses for
protocol errors. Other areas add their methods here with one line each."""
from .ceilings import handle_measure_ceilings
from .check import handle_check
from .environment import handle_hello
from .profile import handle_profile
from .reference_timing import handle_time_reference
from .task_info import handle_task_info
from .task_init import handle_task_init


def _shutdown(params: dict, request) -> dict:
    return {}


METHODS = {
    "hello": handle_hello,
    "task_info": handle_task_info,
    "task_init": handle_task_init,
    "check": handle_check,
    "time_reference": handle_time_reference,
    "profile": handle_profile,
    "measure_ceilings": handle_measure_ceilings,
    "shutdown": _shutdown,
}
