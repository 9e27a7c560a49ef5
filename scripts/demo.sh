#!/usr/bin/env bash
# README's main job: installs what hone needs, builds it, then runs `hone optimize` with the
# built-in tuner (no LLM, no key) on the bundled, deliberately badly-tuned transpose example:
# tasks/tune_transpose.cu on the GPU when there is one, else tasks/tune_transpose.cpp on the CPU.
# It prints live progress, then the best verified proposal as a diff with its measured speedup.
# The run is stored in build/demo/.hone/hone.db (`build/bin/hone runs` there lists it).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

echo "demo: the first run installs packages and compiles hone (~5 minutes on 2 cores); later runs start in seconds"
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja
cmake --build build -j "$(nproc)" --target hone hone-server

if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU; then
  kernel=tune_transpose.cu device=cuda
else
  kernel=tune_transpose.cpp device=cpu
  echo "demo: no GPU here, so the CPU example runs (the same loop, timed with a host clock)"
fi

# A fresh copy of the example, so the bundled file stays as it is and the demo can be re-run.
DEMO="$ROOT/build/demo"
mkdir -p "$DEMO"
cp "tasks/$kernel" tasks/tune_transpose.py "$DEMO/"
cd "$DEMO"
exec "$ROOT/build/bin/hone" optimize "$kernel" --device "$device" --no-llm --budget "${HONE_DEMO_BUDGET:-3m}"
