"""The `kernel` object of a check or profile request: the library, its form, its torch namespace,
its own kernels' names and its language. Form `modelnew` (a KernelBench answer, issue 15): `library`
is the answer file, `modules` maps each load_inline name to hone's build of it
({"library", "namespace"})."""
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .errors import BadRequest


@dataclass
class KernelSpec:
    """The request's `kernel` object."""

    library: str
    form: str  # "raw" or "torch"
    namespace: Optional[str]
    own_kernels: List[str]
    language: Optional[str]  # "cuda" or "cpp" (the raw declaration in messages); None: by device
    modules: Dict[str, dict] = field(default_factory=dict)  # modelnew: name -> {"library", "namespace"}
    # What the build found in the kernel's own code that no kernel needs and a tamperer does
    # (toolchain/tamper_signs.h: "imports mprotect", ...); empty for an honest kernel.
    tamper_signs: List[str] = field(default_factory=list)

    @staticmethod
    def from_params(params) -> "KernelSpec":
        if not isinstance(params, dict) or not isinstance(params.get("library"), str):
            raise BadRequest("params.kernel must be an object with a library path")
        form = params.get("form", "raw")
        if form not in ("raw", "torch", "modelnew"):
            raise BadRequest(f"params.kernel.form must be raw, torch or modelnew, not {form!r}")
        modules = params.get("modules") or {}
        if not isinstance(modules, dict) or not all(
                isinstance(m, dict) and isinstance(m.get("library"), str) and isinstance(m.get("namespace"), str)
                for m in modules.values()):
            raise BadRequest("params.kernel.modules must map load_inline names to {library, namespace}")
        if form == "torch" and not isinstance(params.get("namespace"), str):
            raise BadRequest("a torch-form kernel needs params.kernel.namespace (torch.ops.<namespace>.forward)")
        own = params.get("own_kernels") or []
        if not isinstance(own, list) or not all(isinstance(k, str) for k in own):
            raise BadRequest("params.kernel.own_kernels must be a list of kernel names")
        language = params.get("language")
        if language not in (None, "cuda", "cpp"):
            raise BadRequest(f"params.kernel.language must be cuda or cpp, not {language!r}")
        signs = params.get("tamper_signs") or []
        if not isinstance(signs, list) or not all(isinstance(s, str) for s in signs):
            raise BadRequest("params.kernel.tamper_signs must be a list of strings")
        return KernelSpec(params["library"], form, params.get("namespace"), own, language, modules, signs)
