#!/usr/bin/env bash
# README's main job: installs what hone needs, builds it, then runs `hone optimize` with the
# built-in tuner (no LLM, no key) on a bundled, deliberately badly-tuned example: the transpose
# tasks/tune_transpose.cu on the GPU when there is one, else on the CPU tasks/tune_chain.cpp, a
# chain of five elementwise ops that eager PyTorch runs as five passes over memory (a fused loop
# in cache-sized blocks does it in about one). It prints each candidate's own result as it
# finishes, then the best verified proposal as a diff with its speedups over the original and eager.
# The run is stored in build/demo/.hone/hone.db (`build/bin/hone runs` there lists it).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

budget=${HONE_DEMO_BUDGET:-3m}
echo "demo: the first run installs packages and compiles hone (up to ~30 minutes on 2 cores with an empty compiler cache, ~5 with a warm one), then the tuner runs for up to $budget; later runs skip the compile"
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja
cmake --build build -j "$(nproc)" --target hone hone-server

if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU; then
  kernel=tune_transpose.cu task=tune_transpose.py device=cuda
else
  kernel=tune_chain.cpp task=tune_chain.py device=cpu
  echo "demo: no GPU here, so the CPU example runs (the same loop, timed with a host clock)"
fi

# A fresh copy of the example, so the bundled file stays as it is and the demo can be re-run.
DEMO="$ROOT/build/demo"
mkdir -p "$DEMO"
cp "tasks/$kernel" "tasks/$task" "$DEMO/"
# On a GPU, a GPU-sized matrix (8192 x 4096, 128 MB each way, as scripts/gpu/optimize.sh): at the
# task's own 1024 x 768, sized for a CPU, a GPU is launch-bound and every configuration ties.
if [ "$device" = cuda ]; then
  sed -i -e 's/^rows = .*/rows = 8192/' -e 's/^cols = .*/cols = 4096/' "$DEMO/$task"
fi
cd "$DEMO"
exec "$ROOT/build/bin/hone" optimize "$kernel" --device "$device" --no-llm --budget "$budget"
