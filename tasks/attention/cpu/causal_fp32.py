# causal_fp32 at a CPU-sized shape (2x4x197x64; the sequence is no multiple of the GPU kernel's
# tiles): the twin of ../causal_fp32.py with the same Model, for CI and the GPU kernel's edge tiles.
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = softmax(q @ k^T * scale, masked to kv_idx <= q_idx) @ v, scale = 1 / sqrt(head_dim),
    for float32 q, k, v of shape (batch, heads, seq, head_dim), checked at float32's default
    tolerance (1e-4): a kernel needs float32 accuracy (tensor cores only through split-precision
    tricks such as 3xTF32; plain TF32 or bf16 products are not accurate enough).

    As a FlexAttention mask_mod (no score_mod):

        def mask_mod(b, h, q_idx, kv_idx):
            return kv_idx <= q_idx
    """

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scale = q.shape[-1] ** -0.5
        scores = (q @ k.transpose(-2, -1)) * scale
        q_idx = torch.arange(q.shape[-2], device=q.device)[:, None]
        kv_idx = torch.arange(k.shape[-2], device=q.device)[None, :]
        scores = scores.masked_fill(kv_idx > q_idx, float("-inf"))
        p = torch.softmax(scores, dim=-1)
        return p @ v


batch = 2
heads = 4
seq = 197
head_dim = 64


def get_inputs():
    shape = (batch, heads, seq, head_dim)
    return [torch.randn(shape) for _ in range(3)]


def get_init_inputs():
    return []
