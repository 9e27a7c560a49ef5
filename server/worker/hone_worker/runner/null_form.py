"""The null form: no code at all, forward does nothing. The judge times it before anything is
loaded, to know what its own loop costs."""
from typing import Sequence

import torch

from ..devices import Device
from .forms import Candidate, LoadSpec


class NullCandidate(Candidate):
    form = "null"
    writes_outputs = True

    def bind(self, args: Sequence, outputs: Sequence[torch.Tensor]):
        return lambda: None


def load(spec: LoadSpec, device: Device) -> NullCandidate:
    return NullCandidate()
