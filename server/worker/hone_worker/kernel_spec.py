"""The `kernel` object of a check or profile request: the library, its form, its torch namespace,
its own kernels' names and its language."""
from dataclasses import dataclass
from typing import List, Optional

from .errors import BadRequest


@dataclass
class KernelSpec:
    """The request's `kernel` object."""

    library: str
    form: str  # "raw" or "torch"
    namespace: Optional[str]
    own_kernels: List[str]
    language: Optional[str]  # "cuda" or "cpp" (the raw declaration in messages); None: by device

    @staticmethod
    def from_params(params) -> "KernelSpec":
        if not isinstance(params, dict) or not isinstance(params.get("library"), str):
            raise BadRequest("params.kernel must be an object with a library path")
        form = params.get("form", "raw")
        if form not in ("raw", "torch"):
            raise BadRequest(f"params.kernel.form must be raw or torch, not {form!r}")
        if form == "torch" and not isinstance(params.get("namespace"), str):
            raise BadRequest("a torch-form kernel needs params.kernel.namespace (torch.ops.<namespace>.forward)")
        own = params.get("own_kernels") or []
        if not isinstance(own, list) or not all(isinstance(k, str) for k in own):
            raise BadRequest("params.kernel.own_kernels must be a list of kernel names")
        language = params.get("language")
        if language not in (None, "cuda", "cpp"):
            raise BadRequest(f"params.kernel.language must be cuda or cpp, not {language!r}")
        return KernelSpec(params["library"], form, params.get("namespace"), own, language)
