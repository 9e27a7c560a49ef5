#!/usr/bin/env bash
# Builds hone here (Debian 12) for the GPU machine: a stripped Release build in build-gpu/ with
# the few shared libraries that machine lacks and the KernelBench files the GPU sections use,
# small enough to carry (the device tool carries at most 64 MiB).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${HONE_GPU_FROM:-}" ]; then
  # Reuse a build that exists (e.g. HONE_GPU_FROM=build, the tree scripts/test.sh built): its
  # outputs are copied and stripped; its absolute paths (/work/main/build/...) resolve on the GPU
  # machine because gpu-check.sh links build -> build-gpu there. Saves a second full build.
  [ -x "$HONE_GPU_FROM/bin/hone" ] || { echo "gpu-pack: $HONE_GPU_FROM/bin/hone is missing: build it first" >&2; exit 2; }
  rm -rf build-gpu/bin build-gpu/lib build-gpu/share
  mkdir -p build-gpu
  cp -a "$HONE_GPU_FROM/bin" "$HONE_GPU_FROM/lib" "$HONE_GPU_FROM/share" build-gpu/
  echo "$HONE_GPU_FROM" > build-gpu/FROM
else
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
  cmake --build build-gpu -j "$(nproc)"
  rm -f build-gpu/FROM
fi
find build-gpu/bin build-gpu/lib build-gpu/share -type f \( -perm -u+x -o -name '*.so' -o -name '*.so.*' \) \
  -exec strip --strip-unneeded {} + 2>/dev/null || true
# The GPU machine has libcurl.so.4, libsqlite3.so.0, libcrypto.so.3 (probe of 2026-11-29);
# carried-lib is for anything a later build links that it lacks.
mkdir -p build-gpu/carried-lib
rm -rf build-gpu/shared && mkdir -p build-gpu/shared/kernelbench
cp -r ../shared/kernelbench/baselines build-gpu/shared/kernelbench/
mkdir -p build-gpu/shared/kernelbench/level1 build-gpu/shared/kernelbench/level2
cp ../shared/kernelbench/level1/*.py build-gpu/shared/kernelbench/level1/
cp ../shared/kernelbench/level2/*.py build-gpu/shared/kernelbench/level2/
# KernelBench's own answers (unit tests, prompt examples) and level 3 (init arguments): scripts/gpu/kb.sh.
cp -r ../shared/kernelbench/answers build-gpu/shared/kernelbench/
mkdir -p build-gpu/shared/kernelbench/level3 && cp ../shared/kernelbench/level3/*.py build-gpu/shared/kernelbench/level3/
git rev-parse HEAD > build-gpu/COMMIT
git diff --quiet || echo "+uncommitted" >> build-gpu/COMMIT
du -sh build-gpu/bin build-gpu/lib build-gpu/share build-gpu/shared build-gpu/carried-lib 2>/dev/null
echo "carry size (excluding objects): $(du -sc build-gpu/bin build-gpu/lib build-gpu/share build-gpu/shared build-gpu/carried-lib build-gpu/COMMIT | tail -1)"
