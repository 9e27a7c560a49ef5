"""The modelnew form (issue 15): a KernelBench answer file run as a module with hone's prebuilt
extensions in place of load_inline. Each `load_inline(name=N, ...)` returns an object whose
attributes are the ops hone's toolchain built from that call's sources (`spec.modules[N]`, loaded
with torch.ops.load_library; `spec.namespaces[N]` is its torch.ops namespace). ModelNew is built as
KernelBench builds it and as the judge builds the task's Model: every generator seeded with
`spec.seed`, the task's get_init_inputs() called, ModelNew(*init) constructed. Its forward gets the
task's inputs only: ModelNew owns its parameters (the `state` op shows them to the judge)."""
import os
from types import SimpleNamespace
from typing import Sequence

import torch

from ..devices import Device
from ..errors import TaskError
from ..task import load_task
from .answer_module import AnswerImportError, import_answer
from .errors import RunnerError, load_error
from .forms import Candidate, LoadSpec, build_seeded, describe_state


class ModelNewCandidate(Candidate):
    form = "modelnew"
    writes_outputs = False

    def __init__(self, model: torch.nn.Module) -> None:
        self._model = model

    def params(self):
        return describe_state(self._model)

    def state_tensors(self):
        return [t.detach() for t in self._model.state_dict().values()]

    def bind(self, args: Sequence, outputs: Sequence[torch.Tensor]):
        model, values = self._model, list(args)
        return lambda: model(*values)


def _extensions(spec: LoadSpec):
    """load_inline's replacement: the prebuilt library of that name, as a module of its ops."""
    loaded = {}

    def load_inline(name, *args, functions=None, **kwargs):  # noqa: ARG001 - torch's signature
        name = str(name)
        if name in loaded:
            return loaded[name]
        library = spec.modules.get(name)
        namespace = spec.namespaces.get(name)
        if library is None or namespace is None:
            raise RuntimeError(f"load_inline(name='{name}') was not called when hone recorded the answer's imports; "
                               "hone builds the sources of the load_inline calls made at import time")
        if not os.path.isfile(library):
            raise RuntimeError(f"hone's build of load_inline('{name}') is missing: {library}")
        torch.ops.load_library(library)
        ops = getattr(torch.ops, namespace)
        names = list(functions) if functions is not None else []
        module = SimpleNamespace(**{f: getattr(ops, f) for f in names})
        module.__name__ = name
        loaded[name] = module
        return module

    return load_inline


def load(spec: LoadSpec, device: Device) -> ModelNewCandidate:
    if not os.path.isfile(spec.source):
        raise load_error(f"answer file not found: {spec.source}")
    # Triton compiles on first call and caches under $HOME, which a confined process cannot write:
    # its scratch folder (the answer's own folder) is the only writable one.
    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(os.path.dirname(os.path.abspath(spec.source)), ".triton"))
    try:
        module = import_answer(spec.source, _extensions(spec))
    except AnswerImportError as exc:
        raise RunnerError("load_error", exc.message, exc.traceback or None) from None
    model_new = getattr(module, "ModelNew", None)
    if not (isinstance(model_new, type) and issubclass(model_new, torch.nn.Module)):
        raise load_error(f"{spec.source} defines no class ModelNew(nn.Module) (a KernelBench answer does)")
    get_init_inputs = getattr(module, "get_init_inputs", lambda: [])
    if spec.task:
        try:
            get_init_inputs = load_task(spec.task).get_init_inputs
        except TaskError as exc:
            raise RunnerError("load_error", exc.message, exc.traceback or None) from None
    try:
        model = build_seeded(device, spec.seed, get_init_inputs, spec.init, model_new)
    except Exception as exc:  # noqa: BLE001 - answer code may raise anything
        raise load_error(f"building ModelNew(*get_init_inputs()) of {spec.source} raised {type(exc).__name__}: {exc}",
                         exc) from None
    return ModelNewCandidate(model)
