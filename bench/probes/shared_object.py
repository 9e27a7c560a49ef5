"""bench/probes/shared_object.py: a probe's or benchmark's own CUDA source built with nvcc into a
shared object and loaded with ctypes (NVCC in the environment names the compiler)."""
import ctypes
import os
import subprocess


def build_shared(source: str, out_dir: str, *flags: str, timeout_s: float = 180) -> str:
    """Builds `source` into out_dir/<its stem>.so (-O2 unless `flags` say otherwise; flags may name
    more sources and libraries) and returns its path; raises OSError or subprocess.SubprocessError."""
    lib = os.path.join(out_dir, os.path.splitext(os.path.basename(source))[0] + ".so")
    subprocess.run([os.environ.get("NVCC", "nvcc"), *(flags or ("-O2",)), "-shared", "-Xcompiler", "-fPIC", "-o", lib,
                    source], check=True, timeout=timeout_s, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return lib


def build_and_load(source: str, out_dir: str, *flags: str, timeout_s: float = 180) -> ctypes.CDLL:
    """build_shared, then the library loaded."""
    return ctypes.CDLL(build_shared(source, out_dir, *flags, timeout_s=timeout_s))
