"""What a torch-form, modelnew or reference forward returned: its tensors copied into the judge's
output buffers (only where shape and dtype match), and the `returned` metadata of a `call` reply,
with which the judge tells a fresh result from memory it already knows (an argument, an earlier
output, a tensor whose elements overlap, the same storage returned again) and, since a second
mapping of an argument's pages hides from any address comparison, whether the result changed when
the arguments were overwritten after forward returned (overwrite_arguments)."""
from typing import List, Optional, Sequence, Tuple

import torch

from ..arena import bitwise_equal, dtype_name
from .errors import RunnerError


def returned_tensors(result) -> List[torch.Tensor]:
    """forward's result as a list of tensors; a forward_error for anything else."""
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    for i, item in enumerate(items):
        if not isinstance(item, torch.Tensor):
            raise RunnerError("forward_error", f"forward's output {i} is a {type(item).__name__}; outputs must be "
                              "tensors")
    return items


@torch.no_grad()
def copy_into(returned: Sequence[torch.Tensor], outputs: Sequence[torch.Tensor]) -> None:
    """Copies each returned tensor into the output buffer at its position, where both exist and
    shape and dtype match (the judge finds the others unwritten)."""
    for got, out in zip(returned, outputs):
        if tuple(got.shape) == tuple(out.shape) and got.dtype == out.dtype:
            out.copy_(got)


def describe(returned: Sequence[torch.Tensor], args: Sequence, changed: Sequence[bool] = ()) -> List[dict]:
    """The `returned` entries: shape, dtype, strides, device, the tensor arguments and earlier
    outputs whose memory it overlaps, whether its own elements overlap, its storage pointer, and
    (`changed`) whether it changed when the arguments were overwritten after forward returned."""
    spans = [span(t) for t in returned]
    arg_spans = [(i, span(a)) for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
    out = []
    for k, t in enumerate(returned):
        out.append({
            "shape": list(t.shape), "dtype": _dtype(t.dtype), "strides": list(t.stride()), "device": str(t.device),
            "aliases": [i for i, other in arg_spans if _overlap(spans[k], other)],
            "same_as": [j for j in range(k) if _overlap(spans[k], spans[j])],
            "overlaps_self": overlaps_self(t),
            "storage": _storage_pointer(t),
            "changed_with_arguments": bool(changed[k]) if k < len(changed) else False,
        })
    return out


def aliases_an_argument(returned: Sequence[torch.Tensor], args: Sequence) -> bool:
    """Whether a returned tensor's memory overlaps an argument's at the same addresses (a view the
    `aliases` metadata already names; a reference may do so, and its candidate then too)."""
    arg_spans = [span(a) for a in args if isinstance(a, torch.Tensor)]
    return any(_overlap(span(t), other) for t in returned for other in arg_spans)


@torch.no_grad()
def overwrite_arguments(args: Sequence) -> None:
    """Fills every tensor argument with a value no honest result keeps (NaN; integers their
    smallest value; booleans flipped), in place on the current stream: a result that still reads an
    argument's memory, through any mapping of its pages, changes with it."""
    for a in args:
        if not isinstance(a, torch.Tensor) or a.numel() == 0:
            continue
        if a.dtype == torch.bool:
            a.logical_not_()
        elif a.is_floating_point() or a.is_complex():
            a.fill_(float("nan"))
        else:
            a.fill_(torch.iinfo(a.dtype).min)


@torch.no_grad()
def changed_since(returned: Sequence[torch.Tensor], before: Sequence[torch.Tensor]) -> List[bool]:
    """Per returned tensor: whether its bytes differ from `before` (its clone)."""
    return [not bitwise_equal(t, b) for t, b in zip(returned, before)]


Span = Optional[Tuple[str, int, int]]  # (device, first byte, one past the last byte); None when empty


def span(t: torch.Tensor) -> Span:
    if t.numel() == 0:
        return None
    low = high = 0
    for n, s in zip(t.shape, t.stride()):
        reach = (n - 1) * s
        low, high = (low + reach, high) if s < 0 else (low, high + reach)
    start = t.data_ptr()
    return str(t.device), start + low * t.element_size(), start + (high + 1) * t.element_size()


def _overlap(a: Span, b: Span) -> bool:
    return a is not None and b is not None and a[0] == b[0] and a[1] < b[2] and b[1] < a[2]


def overlaps_self(t: torch.Tensor) -> bool:
    """Whether two elements of `t` share memory (an expand, a stride-0 or overlapping as_strided)."""
    dims = sorted((abs(s), n) for n, s in zip(t.shape, t.stride()) if n > 1)
    if any(n == 0 for n in t.shape) or not dims:
        return False
    reach = 0
    for stride, n in dims:
        if stride <= reach:
            return _exact_overlap(t)
        reach += (n - 1) * stride
    return False


def _exact_overlap(t: torch.Tensor) -> bool:
    """The slow, exact test for layouts the sufficient condition cannot clear."""
    offsets = torch.zeros((), dtype=torch.int64)
    for n, s in zip(t.shape, t.stride()):
        offsets = (offsets.unsqueeze(-1) + torch.arange(n, dtype=torch.int64) * s).reshape(-1)
    return offsets.unique().numel() < offsets.numel()


def _storage_pointer(t: torch.Tensor) -> int:
    storage = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    return int(storage.data_ptr())


def _dtype(dtype: torch.dtype) -> str:
    try:
        return dtype_name(dtype)
    except ValueError:
        return str(dtype).replace("torch.", "")
