"""Importing a KernelBench answer file (a module defining ModelNew) with load_inline replaced, the
one piece the recorder (inline_record.py) and the modelnew form (modelnew_form.py) share: the
answer is executed as a fresh module with `torch.utils.cpp_extension.load_inline` (and `load`)
swapped for hone's function, and whether Triton is there is said plainly when it is not."""
import importlib.util
import sys
import traceback
from types import ModuleType
from typing import Callable

TRITON_MISSING = ("this answer uses Triton, which is not installed beside this torch ({torch}): Triton answers "
                  "run where torch ships Triton (a CUDA build of torch 2.x on a GPU machine)")


class AnswerImportError(Exception):
    """The answer file failed to import; `message` says what raised, `traceback` the Python traceback."""

    def __init__(self, message: str, tb: str = "", triton_missing: bool = False) -> None:
        super().__init__(message)
        self.message, self.traceback, self.triton_missing = message, tb, triton_missing


def import_answer(path: str, load_inline: Callable, module_name: str = "hone_answer") -> ModuleType:
    """Executes the answer file with load_inline replaced; raises AnswerImportError."""
    import torch  # noqa: PLC0415
    import torch.utils.cpp_extension as cpp_extension  # noqa: PLC0415

    def load(name, sources=None, **kwargs):  # noqa: ARG001 - torch's signature
        raise RuntimeError("torch.utils.cpp_extension.load (sources on disk) is not supported by hone: pass the "
                           "sources to load_inline")

    saved = cpp_extension.load_inline, cpp_extension.load
    cpp_extension.load_inline, cpp_extension.load = load_inline, load
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise AnswerImportError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        raise AnswerImportError(TRITON_MISSING.format(torch=torch.__version__) if missing.split(".")[0] == "triton"
                                else f"importing {path} raised ModuleNotFoundError: {exc}",
                                traceback.format_exc(), triton_missing=missing.split(".")[0] == "triton") from None
    except BaseException as exc:  # noqa: BLE001 - the answer may raise anything
        raise AnswerImportError(f"importing {path} raised {type(exc).__name__}: {exc}", traceback.format_exc()) from None
    finally:
        cpp_extension.load_inline, cpp_extension.load = saved
    return module


def triton_kernels(module: ModuleType) -> list:
    """The names of the answer's @triton.jit (and autotuned) functions: its own kernels."""
    names = []
    for name, value in vars(module).items():
        kind = type(value).__module__ or ""
        if kind.startswith("triton"):
            fn = getattr(value, "fn", None)
            while fn is not None and kind.startswith("triton") and hasattr(fn, "fn"):
                fn = fn.fn
            names.append(getattr(fn, "__name__", name) if fn is not None else name)
    return names
