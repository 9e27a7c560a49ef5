"""The task's __init__ arguments (issue 15): get_init_inputs() called after the signature's seeding,
each value named after the Model.__init__ parameter it binds to. The scalars (int, float, bool)
become `constexpr hone::task::<name>` in every hone-form kernel built for the task (the engine
writes them), and `hone task` prints them. `task_init` loads the task and calls get_init_inputs()
only: no Model is built, nothing runs on a device."""
import inspect
import math
import re
from typing import List

import torch

from .channel import Request
from .devices import parse_device
from .errors import TaskError, task_error_from
from .task import Task, load_task

SIGNATURE_SEED = 0x5EED
# C++ keywords and names a constexpr in namespace hone::task could not take.
_CPP_RESERVED = {
    "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char", "class", "const",
    "constexpr", "continue", "default", "delete", "do", "double", "else", "enum", "explicit", "export", "extern",
    "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "namespace", "new", "not", "operator",
    "or", "private", "protected", "public", "register", "return", "short", "signed", "sizeof", "static", "struct",
    "switch", "template", "this", "throw", "true", "try", "typedef", "typename", "union", "unsigned", "using",
    "virtual", "void", "volatile", "while", "xor",
}


def init_parameter_names(model_class: type, count: int) -> List[str]:
    """The names get_init_inputs()'s values bind to in Model.__init__ (`init<i>` past them or for *args)."""
    try:
        parameters = list(inspect.signature(model_class.__init__).parameters.values())[1:]
    except (TypeError, ValueError):
        parameters = []
    names = []
    for p in parameters:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        else:
            break
    return names[:count] + [f"init{i}" for i in range(len(names), count)]


def init_arguments(task: Task, values: list) -> List[dict]:
    """[{name, kind, value?, cpp?}]: every value; scalars carry their value and C++ name."""
    out = []
    for name, value in zip(init_parameter_names(task.model_class, len(values)), values):
        entry = {"name": name}
        if isinstance(value, bool):
            entry.update(kind="bool", value=value)
        elif isinstance(value, int):
            entry.update(kind="int", value=value)
        elif isinstance(value, float):
            entry.update(kind="float", value=value if math.isfinite(value) else str(value))
        elif isinstance(value, torch.Tensor):
            entry.update(kind="tensor", dtype=str(value.dtype).replace("torch.", ""), shape=list(value.shape))
        else:
            entry.update(kind=type(value).__name__, repr=repr(value)[:200])
        if entry["kind"] in ("bool", "int", "float") and re.fullmatch(r"[A-Za-z_]\w*", name) \
                and name not in _CPP_RESERVED and not name.startswith("__"):
            entry["cpp"] = f"hone::task::{name}"
        out.append(entry)
    return out


def task_init(task: Task) -> List[dict]:
    device = parse_device("cpu")
    device.seed(SIGNATURE_SEED)
    try:
        with torch.no_grad():
            values = task.get_init_inputs()
    except Exception as exc:  # noqa: BLE001 - task code may raise anything
        raise task_error_from("get_init_inputs()", exc) from None
    if not isinstance(values, (list, tuple)):
        raise TaskError(f"get_init_inputs() must return a list, not {type(values).__name__}")
    return init_arguments(task, list(values))


def handle_task_init(params: dict, request: Request) -> dict:
    """`task_init` {task} -> {"task_hash", "name", "init": [...]}."""
    task = load_task(params.get("task"))
    request.progress("task", f"get_init_inputs() of {task.name}")
    return {"task_hash": task.hash, "name": task.name, "init": task_init(task)}
