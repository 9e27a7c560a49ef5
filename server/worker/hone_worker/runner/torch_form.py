"""The torch form: the library registers torch.ops.<namespace>.forward (hone's generated glue);
loaded with torch.ops.load_library, its schema is the load reply's "declared"."""
import os
from typing import Sequence

import torch

from ..devices import Device
from .errors import load_error
from .forms import Candidate, LoadSpec


class TorchCandidate(Candidate):
    form = "torch"
    writes_outputs = False

    def __init__(self, namespace: str, op, arguments, returns) -> None:
        self.namespace, self._op = namespace, op
        self.declared = {"arguments": arguments, "returns": returns}

    def bind(self, args: Sequence, outputs: Sequence[torch.Tensor]):
        op, values = self._op, list(args)
        return lambda: op(*values)


def load(spec: LoadSpec, device: Device) -> TorchCandidate:
    if not os.path.isfile(spec.library):
        raise load_error(f"kernel library not found: {spec.library}")
    try:
        torch.ops.load_library(spec.library)
    except Exception as exc:  # noqa: BLE001 - dlopen and registration errors
        raise load_error(f"cannot load torch-form kernel library {spec.library}: {exc}", exc) from None
    schemas = torch._C._jit_get_schemas_for_operator(f"{spec.namespace}::forward")
    if not schemas:
        raise load_error(f"{spec.library} does not register torch.ops.{spec.namespace}.forward; is it a hone "
                         "torch-form kernel, and is the namespace right?")
    schema = schemas[0]
    returns = [str(r.type) for r in schema.returns]
    count = None if returns == ["Tensor[]"] else len(returns)
    op = getattr(getattr(torch.ops, spec.namespace), "forward")
    return TorchCandidate(spec.namespace, op, [str(a.type) for a in schema.arguments], count)
