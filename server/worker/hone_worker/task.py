"""Loading a KernelBench-format task file (class Model, get_inputs, get_init_inputs) as a fresh
module, with hone's optional module-level settings (HONE_ATOL, HONE_RTOL, HONE_TIMING_VARIATION)."""
import hashlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Callable, Optional

import torch

from .errors import TaskError, task_error_from

_REQUIRED = ("Model", "get_inputs", "get_init_inputs")
_VARIATIONS = ("elements", "mix", "pool")


@dataclass
class Task:
    """A loaded reference: the module's entry points and hone's per-task settings."""

    path: str
    name: str
    hash: str
    module: ModuleType
    model_class: type
    get_inputs: Callable
    get_init_inputs: Callable
    atol: Optional[float]
    rtol: Optional[float]
    # How timed calls vary their inputs: "mix" (whole pre-generated sets plus a few rows taken
    # from other sets) or "pool" (whole sets only, for inputs with invariants across rows).
    timing_variation: str


def load_task(path) -> Task:
    """Executes the task file as a new module (never reused across requests). Raises TaskError."""
    if not isinstance(path, str) or not path:
        raise TaskError("params.task must be the path of a task file")
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise TaskError(f"task file not found: {path}")
    with open(path, "rb") as f:
        source = f.read()
    digest = hashlib.sha256(source).hexdigest()
    name = os.path.splitext(os.path.basename(path))[0]
    module = _execute(path, digest)
    missing = [n for n in _REQUIRED if not hasattr(module, n)]
    if missing:
        raise TaskError(
            f"{path}: the task has no {', '.join(missing)} (a KernelBench task defines class Model(nn.Module), "
            "get_inputs() and get_init_inputs())"
        )
    model_class = module.Model
    if not (isinstance(model_class, type) and issubclass(model_class, torch.nn.Module)):
        raise TaskError(f"{path}: Model must be a class derived from torch.nn.Module")
    for fn in ("get_inputs", "get_init_inputs"):
        if not callable(getattr(module, fn)):
            raise TaskError(f"{path}: {fn} must be a function")
    return Task(
        path=path,
        name=name,
        hash=digest,
        module=module,
        model_class=model_class,
        get_inputs=module.get_inputs,
        get_init_inputs=module.get_init_inputs,
        atol=_tolerance(module, "HONE_ATOL", path),
        rtol=_tolerance(module, "HONE_RTOL", path),
        timing_variation=_variation(module, path),
    )


def _execute(path: str, digest: str) -> ModuleType:
    module_name = f"hone_task_{digest[:16]}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise TaskError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    folder = os.path.dirname(path)
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001 - task code may raise anything, even SystemExit
        sys.modules.pop(module_name, None)
        raise task_error_from(f"loading {path}", exc) from None
    finally:
        if sys.path and sys.path[0] == folder:
            del sys.path[0]
    return module


def _tolerance(module: ModuleType, attr: str, path: str) -> Optional[float]:
    value = getattr(module, attr, None)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise TaskError(f"{path}: {attr} must be a non-negative number, not {value!r}")
    return float(value)


def _variation(module: ModuleType, path: str) -> str:
    value = getattr(module, "HONE_TIMING_VARIATION", "elements")
    if value not in _VARIATIONS:
        raise TaskError(f"{path}: HONE_TIMING_VARIATION must be one of {', '.join(_VARIATIONS)}, not {value!r}")
    return value
