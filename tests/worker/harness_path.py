"""Where the runner suites find libhone_harness.so: $HONE_HARNESS_LIBRARY (tests/worker/CMakeLists.txt
sets it to the hone_harness target, scripts/gpu/pyrunner.sh to the carried build), else this tree's
build/share/hone/lib."""
import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def harness_library() -> str:
    configured = os.environ.get("HONE_HARNESS_LIBRARY")
    if configured:
        return configured
    built = REPO / "build" / "share" / "hone" / "lib" / "libhone_harness.so"
    if not built.exists():
        raise FileNotFoundError(f"{built} is missing: build the hone_harness target (cmake --build build --target "
                                "hone_harness) or set HONE_HARNESS_LIBRARY")
    return str(built)
