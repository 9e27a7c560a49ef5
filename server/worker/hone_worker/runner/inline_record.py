"""`python3 -m hone_worker.runner.inline_record ANSWER`: the recorder of a KernelBench answer's
load_inline calls (issue 15), run confined by the engine like any candidate process. It imports the
answer with load_inline replaced by a recorder that keeps each call's arguments and returns a
placeholder module, and prints one JSON object on its original stdout (the answer's own prints go
to stderr): {"calls": [{name, cpp_sources, cuda_sources, functions, extra_cflags,
extra_cuda_cflags, extra_ldflags, extra_include_paths, with_cuda}], "uses_triton", "triton_kernels",
"error"?, "traceback"?, "triton_missing"?}. hone's toolchain then builds each call's sources."""
import json
import os
import sys

from .answer_module import AnswerImportError, import_answer, triton_kernels


def _strings(value, what: str) -> list:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise TypeError(f"load_inline's {what} must be a string or a list of strings, not {type(value).__name__}")


class _Placeholder:
    """What load_inline returns while recording: the module is not built yet."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str):
        def unavailable(*args, **kwargs):
            raise RuntimeError(f"hone records load_inline('{self._name}') before building it: the answer called "
                               f"{attr} while being imported")
        return unavailable


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: python3 -m hone_worker.runner.inline_record ANSWER.py", file=sys.stderr)
        return 2
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    calls = []

    def recorder(name, cpp_sources=None, cuda_sources=None, functions=None, extra_cflags=None,
                 extra_cuda_cflags=None, extra_ldflags=None, extra_include_paths=None, build_directory=None,
                 verbose=False, with_cuda=None, is_python_module=True, with_pytorch_error_handling=True,
                 keep_intermediates=True, use_pch=False, **kwargs):  # noqa: ARG001 - torch's signature
        if isinstance(functions, dict):
            functions = list(functions)
        calls.append({"name": str(name), "cpp_sources": _strings(cpp_sources, "cpp_sources"),
                      "cuda_sources": _strings(cuda_sources, "cuda_sources"),
                      "functions": _strings(functions, "functions"),
                      "extra_cflags": _strings(extra_cflags, "extra_cflags"),
                      "extra_cuda_cflags": _strings(extra_cuda_cflags, "extra_cuda_cflags"),
                      "extra_ldflags": _strings(extra_ldflags, "extra_ldflags"),
                      "extra_include_paths": _strings(extra_include_paths, "extra_include_paths"),
                      "with_cuda": with_cuda})
        return _Placeholder(str(name))

    result = {"calls": calls, "uses_triton": False, "triton_kernels": []}
    try:
        module = import_answer(os.path.abspath(sys.argv[1]), recorder, "hone_answer_record")
        result["uses_triton"] = "triton" in sys.modules
        result["triton_kernels"] = triton_kernels(module)
        result["has_model_new"] = hasattr(module, "ModelNew")
    except AnswerImportError as exc:
        result.update(error=exc.message, traceback=exc.traceback, triton_missing=exc.triton_missing)
    out.write(json.dumps(result))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
