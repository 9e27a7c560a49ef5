#!/usr/bin/env bash
# tests/lsp/nvim/run_nvim_test.sh HONE_SERVER: the headless Neovim end-to-end test (ctest
# lsp_e2e_neovim): a private workspace with a CPU task (relu) and a kernel with an error, then
# Debian's nvim --headless runs check_lens.lua. Exit 77 (ctest: skipped) when nvim is missing.
set -euo pipefail
server="$(realpath "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v nvim >/dev/null; then
  echo "lsp_e2e_neovim: SKIPPED: no nvim (scripts/install-deps.sh installs Debian's neovim)"
  exit 77
fi
ws="$(mktemp -d /tmp/hone-nvim-XXXXXX)"
chmod 755 "$ws"  # the sandbox runs candidates as another user when hone runs as root
trap 'rm -rf "$ws"' EXIT
cat > "$ws/relu.py" <<'PY'
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(8, 128)]


def get_init_inputs():
    return []
PY
cat > "$ws/relu.cpp" <<'CPP'
#include "hone.h"

void forward(hone::In<float> x, hone::Out<float> out) {
  for (int64_t i = 0; i < x.numel(); ++i) out.data()[i] = x.data()[i] > 0.f ? x.data()[i] : 0.f;
}
int broken = ;
CPP
export HONE_SERVER="$server" HONE_WORKSPACE="$ws" HONE_CACHE_DIR="$ws/.cache"
cd "$ws"
timeout 900 nvim --headless -n -i NONE --noplugin -u "$here/check_lens.lua" </dev/null 2>&1
