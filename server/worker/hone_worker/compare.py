"""Comparing a candidate's outputs with the reference's: structure (count, shape, dtype, device,
strides, aliasing), values within tolerance by dtype, NaN/Inf, never-written elements, and the
first mismatch described with its index and values."""
from dataclasses import dataclass
from typing import List, Optional, Sequence

import torch

from .poison import allocator_poisoned, still_poisoned
from .signature import dtype_name

# Default tolerances by output dtype (atol = rtol); other dtypes compare exactly.
_DEFAULT_TOLERANCE = {torch.float32: 1e-4, torch.float64: 1e-4, torch.float16: 1e-2, torch.bfloat16: 1e-2}


@dataclass(frozen=True)
class Tolerance:
    atol: float
    rtol: float


def tolerance_for(dtype: torch.dtype, atol: Optional[float], rtol: Optional[float]) -> Tolerance:
    """The tolerance for an output dtype; explicit atol/rtol (request, else task) win."""
    default = _DEFAULT_TOLERANCE.get(dtype, 0.0)
    return Tolerance(default if atol is None else atol, default if rtol is None else rtol)


@dataclass
class Mismatch:
    output: int
    index: List[int]
    got: object
    expected: object
    count: int
    kind: str  # "unwritten", "nonfinite" or "tolerance"
    message: str

    def to_json(self) -> dict:
        return {"output": self.output, "index": self.index, "got": self.got, "expected": self.expected,
                "count": self.count, "kind": self.kind}


@dataclass
class Comparison:
    """Result of comparing all outputs of one call with the reference."""

    max_abs_error: Optional[float]
    max_rel_error: Optional[float]
    mismatch: Optional[Mismatch]

    @property
    def passed(self) -> bool:
        return self.mismatch is None


def output_label(index: int, count: int) -> str:
    return "out" if count == 1 else f"out{index}"


def compare_outputs(got: Sequence[torch.Tensor], expected: Sequence[torch.Tensor], tolerances: Sequence[Tolerance],
                    raw_buffers: bool, allocator_poison: Optional[bool] = None) -> Comparison:
    """Values of each output within tolerance; `raw_buffers`: the outputs are judge-owned buffers
    poisoned with hone's pattern before the call; `allocator_poison` (default: not raw_buffers):
    memory the kernel allocated reads as the allocators' poison bytes where never written (a
    torch-form result copied into a judge-owned buffer has both)."""
    allocator = (not raw_buffers) if allocator_poison is None else allocator_poison
    max_abs, max_rel, first = None, None, None
    for i, (g, e, tol) in enumerate(zip(got, expected, tolerances)):
        one = _compare_one(g, e, tol, output_label(i, len(got)), i, raw_buffers, allocator)
        max_abs = _max(max_abs, one.max_abs_error)
        max_rel = _max(max_rel, one.max_rel_error)
        first = first or one.mismatch
    return Comparison(max_abs, max_rel, first)


_KINDS = ("unwritten", "nonfinite", "tolerance")  # reported in this order of priority
CHUNK_ELEMENTS = 1 << 24  # compared at a time, so float64 copies of huge outputs stay small


def _compare_one(got: torch.Tensor, expected: torch.Tensor, tol: Tolerance, label: str, output: int,
                 raw_buffers: bool, allocator: bool) -> Comparison:
    quick = _quick_pass(got, expected, tol)
    if quick is not None:
        return quick
    flat_got = got.detach().reshape(-1)
    flat_expected = expected.detach().reshape(-1)
    numel = flat_expected.numel()
    counts = dict.fromkeys(_KINDS, 0)
    firsts = dict.fromkeys(_KINDS)
    max_abs, max_rel = 0.0, 0.0
    for start in range(0, numel, CHUNK_ELEMENTS):
        masks, chunk_abs, chunk_rel = _compare_chunk(flat_got[start:start + CHUNK_ELEMENTS],
                                                     flat_expected[start:start + CHUNK_ELEMENTS], tol, raw_buffers,
                                                     allocator)
        max_abs, max_rel = max(max_abs, chunk_abs), max(max_rel, chunk_rel)
        for kind, mask in zip(_KINDS, masks):
            count = int(mask.sum())
            if count and firsts[kind] is None:
                firsts[kind] = start + int(mask.nonzero()[0])
            counts[kind] += count
    for kind in _KINDS:
        if counts[kind]:
            return Comparison(max_abs, max_rel, _mismatch(kind, firsts[kind], flat_got, flat_expected, list(expected.shape),
                                                          tol, label, output, counts[kind], numel))
    return Comparison(max_abs, max_rel, None)


def _quick_pass(got: torch.Tensor, expected: torch.Tensor, tol: Tolerance) -> Optional[Comparison]:
    """The common case cheaply: bitwise equal, or every element finite and within tolerance in
    the outputs' own precision (poison is NaN or far from any value the reference has where it is
    not poisoned itself). None: the full comparison decides."""
    if got.shape != expected.shape or got.dtype != expected.dtype or got.device != expected.device:
        return None
    if torch.equal(got, expected):
        return Comparison(0.0, 0.0, None)
    if not got.dtype.is_floating_point or got.numel() > CHUNK_ELEMENTS:
        return None
    magnitude = expected.abs()
    diff = (got - expected).abs()
    if not bool((diff <= tol.atol + tol.rtol * magnitude).all()):
        return None
    significant = magnitude > tol.atol
    max_rel = float((diff[significant] / magnitude[significant]).max()) if bool(significant.any()) else 0.0
    return Comparison(float(diff.max()), max_rel, None)


def _compare_chunk(got: torch.Tensor, expected: torch.Tensor, tol: Tolerance, raw_buffers: bool, allocator: bool):
    """Masks of unwritten, non-finite and out-of-tolerance elements, and the max abs/rel errors
    (relative errors only where the reference is above atol)."""
    unwritten = torch.zeros(got.shape, dtype=torch.bool, device=got.device)
    if raw_buffers and got.dtype in _POISONABLE:
        unwritten |= still_poisoned(got) & ~still_poisoned(expected.to(got.dtype))
    if allocator:
        unwritten |= allocator_poisoned(got) & ~allocator_poisoned(expected)
    g, e = got.to(torch.float64), expected.to(torch.float64)
    both_finite = torch.isfinite(g) & torch.isfinite(e)
    diff = torch.where(both_finite, (g - e).abs(), torch.zeros_like(g))
    out_of_tolerance = both_finite & (diff > tol.atol + tol.rtol * e.abs())
    same_nonfinite = (torch.isnan(g) & torch.isnan(e)) | (torch.isinf(g) & (g == e))
    nonfinite = ~torch.isfinite(g) & torch.isfinite(e)
    lost_nonfinite = ~torch.isfinite(e) & ~same_nonfinite
    significant = both_finite & (e.abs() > tol.atol)
    max_rel = float((diff[significant] / e.abs()[significant]).max()) if bool(significant.any()) else 0.0
    return (unwritten, nonfinite, out_of_tolerance | lost_nonfinite), float(diff.max()), max_rel


_POISONABLE = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32, torch.int64, torch.int16,
               torch.int8, torch.uint8, torch.bool)


def _mismatch(kind: str, flat: int, got_values: torch.Tensor, expected_values: torch.Tensor, shape: List[int],
              tol: Tolerance, label: str, output: int, count: int, numel: int) -> Mismatch:
    index = _unravel(flat, shape)
    got = _scalar(got_values[flat].to(torch.float64))
    expected = _scalar(expected_values[flat].to(torch.float64))
    where = f"{label}[{','.join(map(str, index))}]" if index else label
    if kind == "unwritten":
        message = (f"{where} was never written (it still holds the poison put there before the call); "
                   f"{count} of {numel} elements never written")
    elif kind == "nonfinite":
        message = (f"{where}: got {_fmt(got)}, expected {_fmt(expected)}; {count} of {numel} elements are NaN or Inf "
                   "where the reference is finite (never written, or computed so)")
    else:
        message = (f"{where}: got {_fmt(got)}, expected {_fmt(expected)}; {count} of {numel} elements out of tolerance "
                   f"(atol={tol.atol:g}, rtol={tol.rtol:g})")
    return Mismatch(output, index, got, expected, count, kind, message)


def _unravel(flat: int, shape: List[int]) -> List[int]:
    index = []
    for size in reversed(shape):
        index.append(flat % size)
        flat //= size
    return list(reversed(index))


def _scalar(t: torch.Tensor) -> float:
    return float(t.item())


def _fmt(value: float) -> str:
    return f"{value:.6g}"


def _max(a: Optional[float], b: Optional[float]) -> Optional[float]:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def structure_problem(returned: Sequence[dict], expected: Sequence[torch.Tensor]) -> Optional[str]:
    """Output count, shape, dtype and device of what forward returned (the candidate process's
    `returned` metadata); None when they all match the reference's."""
    if len(returned) != len(expected):
        return f"forward returned {len(returned)} output(s), the reference returns {len(expected)}"
    for i, (g, e) in enumerate(zip(returned, expected)):
        label = output_label(i, len(returned))
        if list(g.get("shape", [])) != list(e.shape):
            return f"{label} has shape {list(g.get('shape', []))}, the reference's has shape {list(e.shape)}"
        if g.get("dtype") != dtype_name(e.dtype):
            return f"{label} has dtype {g.get('dtype')}, the reference's has dtype {dtype_name(e.dtype)}"
        if torch.device(str(g.get("device", "meta"))) != e.device:
            return f"{label} is on {g.get('device')}, the reference's is on {e.device}"
    return None


def stride_differences(returned: Sequence[dict], expected: Sequence[torch.Tensor]) -> List[str]:
    """Outputs whose strides differ from the reference's (a flag, not a failure)."""
    return [f"{output_label(i, len(returned))} has strides {list(g['strides'])}, the reference's {list(e.stride())}"
            for i, (g, e) in enumerate(zip(returned, expected))
            if e.numel() > 1 and tuple(g.get("strides", e.stride())) != tuple(e.stride())]


def aliasing_problem(returned: Sequence[dict], expected: Sequence[torch.Tensor], argument_names: Sequence[str],
                     reference_arguments: Sequence) -> Optional[str]:
    """Outputs that share memory with an argument or with each other, or overlap themselves (the
    `returned` metadata: `aliases`, `same_as`, `overlaps_self`, `changed_with_arguments`), when
    the reference's outputs do not do the same with its own arguments."""
    for i, g in enumerate(returned):
        label = output_label(i, len(returned))
        e = expected[i]
        if g.get("overlaps_self") and not (e.numel() > 1 and torch._debug_has_internal_overlap(e) == 1):
            return f"{label} overlaps itself (strides {list(g.get('strides', []))}): several elements share one memory location"
        for a in g.get("aliases", []):
            if 0 <= a < len(argument_names) and not shares_memory(e, reference_arguments[a]):
                return (f"{label} shares memory with the argument {argument_names[a]}: forward must compute its "
                        "output, not return an input")
        if g.get("changed_with_arguments") and not any(shares_memory(e, a) for a in reference_arguments):
            return (f"{label} changed when hone overwrote the arguments after forward returned: it is an argument's "
                    "memory under another mapping (forward must compute its output, not return an input)")
        for j in g.get("same_as", []):
            if 0 <= j < i and not shares_memory(e, expected[j]):
                return f"{label} shares memory with {output_label(j, len(returned))}"
    return None


def shares_memory(a, b) -> bool:
    """Whether two tensors' memory ranges intersect (conservative for strided tensors)."""
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor) or a.device != b.device:
        return False
    if a.numel() == 0 or b.numel() == 0:
        return False
    a0, a1 = _extent(a)
    b0, b1 = _extent(b)
    return a0 < b1 and b0 < a1


def _extent(t: torch.Tensor):
    start = t.data_ptr()
    last = sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))
    return start, start + (last + 1) * t.element_size()
