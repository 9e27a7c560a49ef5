#!/usr/bin/env bash
# scripts/gpu/suite.sh: `hone bench` over hone's own examples (tasks/*.py with their .cu kernels)
# on the H200 (run by scripts/gpu-check.sh with HONE_BIN, PY and OUT set): the per-task table,
# fast_p against eager and torch.compile, every verdict as JSON lines and the fast_p plot in
# $OUT/suite/. Best run after the eval section, whose builds and baselines it then finds cached.
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${HONE_BIN:?}" "${OUT:?}" "${PY:=python3}"
mkdir -p "$OUT/suite"
start=$SECONDS
"$HONE_BIN/hone" bench tasks --device cuda --python "$(command -v "$PY")" \
  --out "$OUT/suite/verdicts.jsonl" --plot "$OUT/suite/fast_p.svg" > "$OUT/suite/bench.txt" 2> "$OUT/suite/bench.err"
rc=$?
cat "$OUT/suite/bench.txt"
tail -n 3 "$OUT/suite/bench.err"
echo "hone bench tasks (cuda): rc=$rc in $((SECONDS - start)) s (1 = some kernel not correct, 2 = could not run)"
[ $rc -le 1 ] && [ -s "$OUT/suite/bench.txt" ]
