"""The forms a python runner can load (the `load` op): what a loaded candidate offers the ops, the
request's fields, and the registry of form modules. A form is one module of this package with
`load(spec: LoadSpec, device: Device) -> Candidate`, imported only when a `load` names it; a form
whose module is absent answers `unsupported` (the `modelnew` form lives in modelnew_form.py, issue
15: the answer file run with hone's prebuilt extension modules, `spec.modules`, in place of
load_inline, ModelNew built with build_seeded() like the reference's Model)."""
import importlib
import importlib.util
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence

import torch

from ..devices import Device
from .errors import bad_request, unsupported

FORM_MODULES = {"raw": "raw_form", "torch": "torch_form", "modelnew": "modelnew_form",
                "reference": "reference_form", "null": "null_form"}


@dataclass
class LoadSpec:
    """The `load` request's fields, validated for the form."""

    form: str
    library: Optional[str] = None
    namespace: Optional[str] = None
    source: Optional[str] = None
    modules: Dict[str, str] = field(default_factory=dict)
    namespaces: Dict[str, str] = field(default_factory=dict)  # modelnew: extension name -> torch.ops namespace
    task: Optional[str] = None  # modelnew: the task file whose get_init_inputs() builds ModelNew
    init: Optional[list] = None
    seed: Optional[int] = None
    language: Optional[str] = None
    compile: bool = False

    @staticmethod
    def from_json(request: dict) -> "LoadSpec":
        form = request.get("form")
        if form not in FORM_MODULES:
            raise bad_request(f"load.form must be one of {', '.join(FORM_MODULES)}, not {form!r}")
        spec = LoadSpec(form)
        for name in ("library", "namespace", "source", "language", "task"):
            value = request.get(name)
            if value is not None and not isinstance(value, str):
                raise bad_request(f"load.{name} must be a string, not {value!r}")
            setattr(spec, name, value)
        modules = request.get("modules") or {}
        if not isinstance(modules, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                    for k, v in modules.items()):
            raise bad_request("load.modules must map extension names to library paths")
        spec.modules = modules
        namespaces = request.get("namespaces") or {}
        if not isinstance(namespaces, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                       for k, v in namespaces.items()):
            raise bad_request("load.namespaces must map extension names to torch.ops namespaces")
        spec.namespaces = namespaces
        init = request.get("init")
        if init is not None and not isinstance(init, list):
            raise bad_request(f"load.init must be a list, not {init!r}")
        spec.init = init
        seed = request.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise bad_request(f"load.seed must be an integer, not {seed!r}")
        spec.seed = seed
        spec.compile = bool(request.get("compile", False))
        spec.require(*{"raw": ("library",), "torch": ("library", "namespace"), "modelnew": ("source", "seed"),
                       "reference": ("source", "seed"), "null": ()}[form])
        return spec

    def require(self, *names: str) -> None:
        missing = [n for n in names if getattr(self, n) is None]
        if missing:
            raise bad_request(f"a {self.form}-form load needs {', '.join('load.' + n for n in missing)}")


class Candidate:
    """One loaded candidate. Subclasses set the class attributes and implement bind()."""

    form = ""
    writes_outputs = True  # raw/null: forward writes the output buffers; else its returns are copied
    namespace: Optional[str] = None  # torch.ops namespace, the root of the records op's library_ops
    declared = None  # the load reply's "declared"

    def params(self) -> List[dict]:
        """The load reply's "params" (a model's state_dict, in order)."""
        return []

    def bind(self, args: Sequence, outputs: Sequence[torch.Tensor]) -> Callable[[], Optional[object]]:
        """A call of forward on `args`: it returns forward's result (None where writes_outputs)."""
        raise NotImplementedError

    def state_tensors(self) -> List[torch.Tensor]:
        """The `state` op's tensors, in order."""
        raise bad_request(f"state is answered for the modelnew form only, not {self.form}")

    def warm(self, call: Callable[[], object]) -> dict:
        """Run before a `time` op's settling (torch.compile: until nothing recompiles); returns
        fields added to its reply."""
        return {}

    def after_timing(self) -> dict:
        """Fields added to a `time` op's reply after its timed calls."""
        return {}


def available_forms() -> List[str]:
    """The forms whose modules are present (the ready event's "forms"); nothing is imported."""
    return [form for form, module in FORM_MODULES.items() if importlib.util.find_spec(f"{__package__}.{module}")]


def load_candidate(spec: LoadSpec, device: Device) -> Candidate:
    """Imports the form's module and loads the candidate; raises RunnerError."""
    if spec.form not in available_forms():
        raise unsupported(f"this python runner has no {spec.form} form yet ({FORM_MODULES[spec.form]}.py is absent)")
    module = importlib.import_module(f"{__package__}.{FORM_MODULES[spec.form]}")
    return module.load(spec, device)


def build_seeded(device: Device, seed: int, get_init_inputs: Callable[[], object], init: Optional[list],
                 construct: Callable[..., torch.nn.Module]) -> torch.nn.Module:
    """A model built as the judge builds the task's Model (hone_worker/instance.py): every generator
    seeded, get_init_inputs() called (so the generators advance as the judge's did), construct(*init)
    on the device under no_grad, moved there. `init` (the judge's values) replaces what
    get_init_inputs() returned when given. Exceptions propagate."""
    device.seed(seed)
    with device.placement(), torch.no_grad():
        values = get_init_inputs()
        if init is not None:
            values = init
        model = construct(*values)
        model.to(device.torch)
    return model


def describe_state(model: torch.nn.Module) -> List[dict]:
    """The load reply's "params" of a model: its state_dict() tensors in order."""
    return [{"name": name, "dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape)}
            for name, t in model.state_dict().items()]
