#!/usr/bin/env bash
# Runs every GPU test and benchmark of hone on the lent H200 in one call, writing logs to $OUT.
# Binaries are built here (Debian 12) by scripts/gpu-pack.sh into build-gpu/ and carried:
#   device run: command "bash scripts/gpu-check.sh [SECTION...]", carry ["build-gpu/bin",
#   "build-gpu/lib", "build-gpu/share", "build-gpu/shared", "build-gpu/carried-lib", "build-gpu/COMMIT",
#   "build-gpu/FROM"]
# Each section is scripts/gpu/<name>.sh; it gets HONE_BUILD, HONE_BIN, PY and OUT, prints a short
# summary and writes full logs under $OUT. Sections run in name order; a failing one does not stop
# the others. The last lines printed are the summary table. Section timing (issue 14: hone's device
# and call time against ncu, do_bench and plain events) wants HONE_TIMEOUT_timing=585 (scripts/gpu/timing.sh says why).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export OUT=${OUT:-/tmp/hone-gpu-out}
mkdir -p "$OUT"

# Tests and binaries were configured at /work/main on the build machine: make that path resolve.
mkdir -p /work
[ -e /work/main ] || ln -s "$ROOT" /work/main
[ -e /work/shared ] || ln -s "$ROOT/build-gpu/shared" /work/shared
# Binaries copied from another build folder (gpu-pack.sh with HONE_GPU_FROM) name that folder.
# A relative FROM (build) is a folder of this checkout; an absolute one (a worktree's build
# folder, /work/wt/NAME/build) also names its checkout, which is this one on the GPU machine.
if [ -f "$ROOT/build-gpu/FROM" ]; then
  from=$(cat "$ROOT/build-gpu/FROM")
  case "$from" in
    /*) src=$(dirname "$from")
        if [ ! -e "$src" ]; then mkdir -p "$(dirname "$src")" && ln -s "$ROOT" "$src"; fi
        [ -e "$ROOT/$(basename "$from")" ] || ln -s "$ROOT/build-gpu" "$ROOT/$(basename "$from")" ;;
    *) [ -e "$ROOT/$from" ] || ln -s "$ROOT/build-gpu" "$ROOT/$from" ;;
  esac
fi

export HONE_BUILD=$ROOT/build-gpu
export HONE_BIN=$HONE_BUILD/bin
export PATH=/usr/local/cuda/bin:$HONE_BIN:$PATH
export LD_LIBRARY_PATH=$HONE_BUILD/lib:$HONE_BUILD/carried-lib:${LD_LIBRARY_PATH:-}
export PY=${PY:-python3}
export PYTHONUNBUFFERED=1

{
  date -u +"date: %Y-%m-%dT%H:%M:%SZ"
  echo "commit: $(cat "$HONE_BUILD/COMMIT" 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
  $PY -c 'import torch,sys; print("torch", torch.__version__, "cuda", torch.version.cuda, "python", sys.version.split()[0])'
  for b in "$HONE_BIN"/hone "$HONE_BIN"/hone-server; do [ -x "$b" ] && ldd "$b" | grep "not found"; done
} 2>&1 | tee "$OUT/environment.txt"

sections=("$@")
if [ ${#sections[@]} -eq 0 ]; then
  for f in scripts/gpu/*.sh; do sections+=("$(basename "$f" .sh)"); done
fi

declare -A status
for s in "${sections[@]}"; do
  echo "=== section $s ==="
  start=$(date +%s)
  limit_var="HONE_TIMEOUT_$s"   # e.g. HONE_TIMEOUT_eval=220 bounds one section
  limit=${!limit_var:-${HONE_SECTION_TIMEOUT:-900}}
  # The section runs in its own session: at its limit everything it started ends with it (a
  # section's own `timeout` puts its command in another process group, out of timeout's reach).
  setsid bash "scripts/gpu/$s.sh" > "$OUT/$s.log" 2>&1 &
  sid=$!
  expired=$(mktemp)
  # Expired only if the section still runs when the limit comes: ending the watcher's sleep below
  # (the section done) lets the subshell go on, and it must not then call the section expired.
  # Its stderr is dropped: bash would print "Terminated" for the sleep ended there.
  ( sleep "$limit"; kill -0 "$sid" 2>/dev/null || exit 0
    echo 1 > "$expired"; pkill -TERM -s "$sid"; sleep 5; pkill -KILL -s "$sid" ) 2>/dev/null &
  watcher=$!
  wait "$sid"
  rc=$?
  pkill -P "$watcher" 2>/dev/null; kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null
  [ -s "$expired" ] && rc=124
  rm -f "$expired"
  pkill -KILL -s "$sid" 2>/dev/null  # whatever the section left running
  status[$s]="rc=$rc $(( $(date +%s) - start ))s"
  tail -n "${HONE_TAIL_LINES:-25}" "$OUT/$s.log"
done

echo "=== summary ==="
for s in "${sections[@]}"; do printf '%-14s %s\n' "$s" "${status[$s]}"; done

# The device tool returns at most 8 files: pack everything into one archive plus the summary.
if [ "${HONE_PACK_OUT:-1}" = 1 ]; then
  pack=$(mktemp -d)
  tar czf "$pack/results.tgz" -C "$OUT" .
  find "$OUT" -mindepth 1 -delete
  mv "$pack/results.tgz" "$OUT/"
  for s in "${sections[@]}"; do printf '%-14s %s\n' "$s" "${status[$s]}"; done > "$OUT/summary.txt"
fi
