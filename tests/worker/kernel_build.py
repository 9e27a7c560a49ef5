"""Builds kernels for the worker's tests: with `hone build --json` when the hone binary is there
(HONE_BIN), else directly with g++ as hone's toolchain does (raw form: the kernel + hone/raw_entry.h;
torch form: + hone/torch_entry.h and the torch glue, torch headers after hone's shim). Builds are
cached by content under HONE_TEST_CACHE (default /tmp/hone-worker-tests)."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

REPO = Path(__file__).resolve().parents[2]
INCLUDE = REPO / "server" / "include"
CACHE = Path(os.environ.get("HONE_TEST_CACHE", "/tmp/hone-worker-tests"))
PYTHON = os.environ.get("HONE_TEST_PYTHON", "/usr/bin/python3")


@dataclass
class Built:
    library: str
    form: str
    namespace: Optional[str]
    language: str
    own_kernels: List[str] = field(default_factory=list)
    tamper_signs: List[str] = field(default_factory=list)  # the build's (hone build --json)

    def kernel_params(self) -> dict:
        out = {"library": self.library, "form": self.form, "own_kernels": self.own_kernels, "language": self.language,
               "tamper_signs": self.tamper_signs}
        if self.namespace:
            out["namespace"] = self.namespace
        return out


class BuildError(Exception):
    pass


def form_of(source: Path) -> str:
    text = source.read_text()
    return "raw" if re.search(r'#\s*include\s*[<"]hone\.h[">]', text) else "torch"


def global_names(source: Path) -> List[str]:
    return re.findall(r"__global__\s+(?:__launch_bounds__\([^)]*\)\s*)?\w+\s+(\w+)\s*\(", source.read_text())


def build(source, device: str = "cpu") -> Built:
    """Builds `source`; with HONE_TEST_BUILD_FALLBACK=1 a failed `hone build` is reported on
    stderr and the kernel is built directly (the GPU section uses this so that a toolchain bug
    does not hide the worker's results)."""
    source = Path(source).resolve()
    hone = _hone_binary()
    if hone:
        try:
            return _build_with_hone(hone, source)
        except BuildError as exc:
            if os.environ.get("HONE_TEST_BUILD_FALLBACK") != "1":
                raise
            sys.stderr.write(f"kernel_build: `hone build` failed, building {source} directly:\n{exc}\n")
    if source.suffix == ".cu":
        return _build_with_nvcc(source)
    return _build_with_gxx(source)


def _hone_binary() -> Optional[str]:
    path = os.environ.get("HONE_BIN")
    if path and os.access(os.path.join(path, "hone"), os.X_OK):
        return os.path.join(path, "hone")
    return None


def _build_with_hone(hone: str, source: Path) -> Built:
    run = subprocess.run([hone, "build", str(source), "--json", "--python", PYTHON], capture_output=True, text=True,
                         timeout=900)
    try:
        report = json.loads(run.stdout)
    except ValueError:
        raise BuildError(f"hone build {source} failed ({run.returncode}):\n{run.stdout}\n{run.stderr}") from None
    compiled = report.get("compile", {})
    if run.returncode != 0 or not compiled.get("ok", False) or not compiled.get("library"):
        raise BuildError(f"hone build {source} failed ({run.returncode}):\n{run.stdout}\n{run.stderr}")
    language = report.get("language", "cuda" if source.suffix == ".cu" else "cpp")
    return Built(compiled["library"], report.get("form", form_of(source)), report.get("op_namespace") or None,
                 language, report.get("own_kernels") or global_names(source), compiled.get("tamper_signs") or [])


def _digest(*parts) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else str(p).encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def _headers_digest() -> str:
    return _digest(*[p.read_bytes() for p in sorted(INCLUDE.rglob("*")) if p.is_file()])


def _compiler() -> List[str]:
    return ["ccache", "g++"] if shutil.which("ccache") else ["g++"]


def _run(cmd: List[str], what: str) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise BuildError(f"{what} failed:\n$ {' '.join(cmd)}\n{done.stdout}{done.stderr}")


def _build_with_gxx(source: Path) -> Built:
    form = form_of(source)
    key = _digest(source.read_bytes(), form, _headers_digest())
    folder = CACHE / "kernels" / key
    library = folder / f"{source.stem}.so"
    namespace = f"hone_{key}" if form == "torch" else None
    if not library.exists():
        folder.mkdir(parents=True, exist_ok=True)
        entry = "hone/raw_entry.h" if form == "raw" else "hone/torch_entry.h"
        unit = folder / "unit.cpp"
        unit.write_text(f'#line 1 "{source}"\n#include "{source}"\n#include "{entry}"\n')
        partial = folder / f"{source.stem}.so.partial"
        cmd = _compiler() + ["-std=c++17", "-O3", "-fPIC", "-shared"]
        if form == "raw":
            cmd += [f"-I{INCLUDE}", f"-I{source.parent}", str(unit), "-o", str(partial)]
        else:
            torch = _torch_paths()
            cmd += [f"-I{INCLUDE / 'shim'}", f"-I{INCLUDE}", f"-I{source.parent}"]
            cmd += [f"-I{p}" for p in torch["include"]]
            cmd += [f"-D_GLIBCXX_USE_CXX11_ABI={int(torch['abi'])}", f"-DHONE_OP_NAMESPACE={namespace}", str(unit),
                    _glue_object(torch), "-o", str(partial), "-Wl,-Bsymbolic"]
            cmd += [f"-L{p}" for p in torch["lib"]] + [f"-Wl,-rpath,{p}" for p in torch["lib"]]
            cmd += ["-ltorch", "-ltorch_cpu", "-lc10"]
        _run(cmd, f"building {source}")
        os.replace(partial, library)
    return Built(str(library), form, namespace, "cpp", global_names(source))


def _nvcc() -> str:
    return os.environ.get("HONE_NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


def _build_with_nvcc(source: Path) -> Built:
    form = form_of(source)
    arch = os.environ.get("HONE_TEST_ARCH", "sm_90")
    key = _digest(source.read_bytes(), form, arch, _headers_digest())
    folder = CACHE / "kernels" / key
    library = folder / f"{source.stem}.so"
    namespace = f"hone_{key}" if form == "torch" else None
    if not library.exists():
        folder.mkdir(parents=True, exist_ok=True)
        entry = "hone/raw_entry.h" if form == "raw" else "hone/torch_entry.h"
        unit = folder / "unit.cu"
        unit.write_text(f'#line 1 "{source}"\n#include "{source}"\n#include "{entry}"\n')
        partial = folder / f"{source.stem}.so.partial"
        cmd = [_nvcc(), f"-arch={arch}", "-O3", "-std=c++17", "-Xcompiler", "-fPIC", "-shared"]
        if form == "raw":
            cmd += [f"-I{INCLUDE}", f"-I{source.parent}", str(unit), "-o", str(partial)]
        else:
            torch = _torch_paths()
            cmd += [f"-I{INCLUDE / 'shim'}", f"-I{INCLUDE}", f"-I{source.parent}"]
            cmd += [f"-I{p}" for p in torch["include"]]
            cmd += ["-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
                    "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__", "--expt-relaxed-constexpr",
                    f"-D_GLIBCXX_USE_CXX11_ABI={int(torch['abi'])}", f"-DHONE_OP_NAMESPACE={namespace}", str(unit),
                    _glue_object(torch), "-o", str(partial), "-Xlinker", "-Bsymbolic"]
            for lib in torch["lib"]:
                cmd += [f"-L{lib}", "-Xlinker", f"-rpath={lib}"]
            cmd += ["-ltorch", "-ltorch_cpu", "-lc10"]
            cmd += [f"-l{name}" for name in ("torch_cuda", "c10_cuda")
                    if any((Path(lib) / f"lib{name}.so").exists() for lib in torch["lib"])]
        _run(cmd, f"building {source}")
        os.replace(partial, library)
    return Built(str(library), form, namespace, "cuda", global_names(source))


_torch_info = None


def _torch_paths() -> dict:
    global _torch_info
    if _torch_info is None:
        code = ("import json, torch; from torch.utils import cpp_extension as c; "
                "print(json.dumps({'include': c.include_paths(), 'lib': c.library_paths(), "
                "'abi': torch._C._GLIBCXX_USE_CXX11_ABI, 'version': torch.__version__}))")
        out = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, check=True).stdout
        _torch_info = json.loads(out.strip().splitlines()[-1])
    return _torch_info


def _glue_object(torch: dict) -> str:
    glue = INCLUDE / "hone" / "torch_glue.cpp"
    key = _digest(glue.read_bytes(), torch["version"], torch["abi"], _headers_digest())
    obj = CACHE / "glue" / key / "torch_glue.o"
    if not obj.exists():
        obj.parent.mkdir(parents=True, exist_ok=True)
        partial = obj.with_suffix(".o.partial")
        cmd = _compiler() + ["-std=c++17", "-O2", "-fPIC", "-c", f"-I{INCLUDE}"]
        cmd += [f"-I{p}" for p in torch["include"]]
        cmd += [f"-D_GLIBCXX_USE_CXX11_ABI={int(torch['abi'])}", str(glue), "-o", str(partial)]
        _run(cmd, "building the torch glue")
        os.replace(partial, obj)
    return str(obj)


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print(build(path).kernel_params())
