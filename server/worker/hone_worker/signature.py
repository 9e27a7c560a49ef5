"""The forward signature a kernel must have for a task (inputs, then state_dict tensors, then the
reference's outputs), its torch-form and raw-form declarations, and the checks of a kernel's
declared signature against it."""
from dataclasses import dataclass
from typing import List, Optional, Sequence

import torch

from .instance import Instance

# Raw-form element types by dtype, for each kernel language.
_RAW_TYPES = {
    "float32": ("float", "float"),
    "float16": ("__half", "hone::f16"),
    "bfloat16": ("__nv_bfloat16", "hone::bf16"),
    "float64": ("double", "double"),
    "int32": ("int32_t", "int32_t"),
    "int64": ("int64_t", "int64_t"),
    "int16": ("int16_t", "int16_t"),
    "int8": ("int8_t", "int8_t"),
    "uint8": ("uint8_t", "uint8_t"),
    "bool": ("bool", "bool"),
}
_TORCH_SCALARS = {"int": "int64_t", "float": "double", "bool": "bool"}


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


@dataclass(frozen=True)
class ArgSpec:
    """One argument of forward: a tensor (dtype, shape) or a Python scalar (kind int/float/bool)."""

    name: str
    kind: str  # "tensor", "int", "float" or "bool"
    dtype: Optional[str] = None
    shape: Optional[List[int]] = None

    @property
    def is_tensor(self) -> bool:
        return self.kind == "tensor"

    def describe(self) -> str:
        """How this argument reads in a mismatch message: "float32 tensor [16, 64]" or "int scalar"."""
        return f"{self.dtype} tensor {list(self.shape)}" if self.is_tensor else f"{self.kind} scalar"

    def to_json(self) -> dict:
        out = {"name": self.name, "kind": self.kind}
        if self.is_tensor:
            out.update(dtype=self.dtype, shape=list(self.shape))
        return out


def spec_of(name: str, value) -> ArgSpec:
    if isinstance(value, torch.Tensor):
        return ArgSpec(name, "tensor", dtype_name(value.dtype), list(value.shape))
    if isinstance(value, bool):
        return ArgSpec(name, "bool")
    return ArgSpec(name, "int" if isinstance(value, int) else "float")


@dataclass(frozen=True)
class Signature:
    inputs: List[ArgSpec]
    params: List[ArgSpec]
    outputs: List[ArgSpec]

    @property
    def arguments(self) -> List[ArgSpec]:
        return self.inputs + self.params

    def torch_declaration(self) -> str:
        ret = "torch::Tensor" if len(self.outputs) == 1 else f"std::tuple<{', '.join(['torch::Tensor'] * len(self.outputs))}>"
        args = [f"{'torch::Tensor' if a.is_tensor else _TORCH_SCALARS[a.kind]} {a.name}" for a in self.arguments]
        return f"{ret} forward({', '.join(args)})"

    def raw_declaration(self, language: str) -> str:
        """`void forward(hone::In<float> x, ..., hone::Out<float> out, hone::Stream stream)`;
        language "cuda" or "cpp" picks the 16-bit float type names."""
        column = 0 if language == "cuda" else 1

        def element(a: ArgSpec) -> str:
            return _RAW_TYPES[a.dtype][column] if a.dtype in _RAW_TYPES else f"/* {a.dtype}: not in the raw ABI */"

        args = [f"hone::In<{element(a)}> {a.name}" if a.is_tensor else f"{_TORCH_SCALARS[a.kind]} {a.name}" for a in self.arguments]
        args += [f"hone::Out<{element(o)}> {o.name}" for o in self.outputs]
        args.append("hone::Stream stream")
        return f"void forward({', '.join(args)})"

    def to_json(self, language: str = "cuda") -> dict:
        return {
            "inputs": [a.to_json() for a in self.inputs],
            "params": [a.to_json() for a in self.params],
            "outputs": [a.to_json() for a in self.outputs],
            "torch": self.torch_declaration(),
            "raw": self.raw_declaration(language),
        }


def derive_signature(instance: Instance, outputs: Sequence[torch.Tensor]) -> Signature:
    names = ["out"] if len(outputs) == 1 else [f"out{i}" for i in range(len(outputs))]
    return Signature(
        inputs=[spec_of(n, v) for n, v in zip(instance.input_names, instance.inputs)],
        params=[spec_of(n, v) for n, v in zip(instance.param_names, instance.params)],
        outputs=[spec_of(n, v) for n, v in zip(names, outputs)],
    )


def raw_mismatch(signature: Signature, declared: str, language: str) -> Optional[str]:
    """Why a raw-form kernel's hone_raw_signature() ("in:float32,out:float32,stream") does not fit
    the task, or None when it fits."""
    tokens = [t for t in declared.split(",") if t and t != "stream"]
    takes = [t for t in tokens if not t.startswith("out:")]
    gives = [t[4:] for t in tokens if t.startswith("out:")]
    expected = f"expected: {signature.raw_declaration(language)}"
    if len(takes) != len(signature.arguments) or len(gives) != len(signature.outputs) or tokens[len(takes):] != [f"out:{g}" for g in gives]:
        return (
            f"forward takes {_count(len(takes), 'argument')} and {_count(len(gives), 'output')} ({declared}), "
            f"the task passes {_count(len(signature.inputs), 'input')} + {_count(len(signature.params), 'param')} "
            f"and has {_count(len(signature.outputs), 'output')}; {expected}"
        )
    for i, (token, arg) in enumerate(zip(takes, signature.arguments)):
        problem = _raw_arg_problem(token, arg)
        if problem:
            return f"argument {i + 1} ({arg.name}): {problem}; {expected}"
    for i, (dtype, out) in enumerate(zip(gives, signature.outputs)):
        if dtype != out.dtype:
            return f"output {i + 1} ({out.name}): kernel writes {dtype}, the reference returns {out.dtype}; {expected}"
    return None


def _raw_arg_problem(token: str, arg: ArgSpec) -> Optional[str]:
    kind, _, what = token.partition(":")
    if kind == "in":
        if not arg.is_tensor:
            return f"kernel takes a {what} tensor, task gives {arg.describe()}"
        return None if what == arg.dtype else f"kernel takes {what}, task gives {arg.dtype}"
    if kind == "scalar":
        if arg.is_tensor or what != arg.kind:
            return f"kernel takes {what} scalar, task gives {arg.describe()}"
        return None
    return f"kernel declares an unknown parameter kind {token!r}"


def torch_mismatch(signature: Signature, argument_types: List[str], return_count: Optional[int]) -> Optional[str]:
    """Why a torch-form op schema (argument types such as "Tensor"/"int", and the number of
    returned tensors, None for a list) does not fit the task, or None when it fits."""
    expected = f"expected: {signature.torch_declaration()}"
    args = signature.arguments
    n_tensors = sum(1 for t in argument_types if t == "Tensor")
    if len(argument_types) != len(args):
        return (
            f"forward takes {_count(len(argument_types), 'argument')} ({_count(n_tensors, 'tensor')}), "
            f"the task has {_count(len(signature.inputs), 'input')} + {_count(len(signature.params), 'param')}; {expected}"
        )
    for i, (declared, arg) in enumerate(zip(argument_types, args)):
        want = "Tensor" if arg.is_tensor else arg.kind
        if declared != want:
            return f"argument {i + 1} ({arg.name}): kernel takes {_torch_kind(declared)}, task gives {arg.describe()}; {expected}"
    if return_count is not None and return_count != len(signature.outputs):
        return (
            f"forward returns {_count(return_count, 'tensor')}, the reference returns {len(signature.outputs)}; {expected}"
        )
    return None


def _torch_kind(schema_type: str) -> str:
    return "a tensor" if schema_type == "Tensor" else f"a {schema_type} scalar"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
