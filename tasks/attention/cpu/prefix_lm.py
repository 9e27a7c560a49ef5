# prefix_lm at a CPU-sized shape (1x2x600x64; the sequence is no multiple of the GPU kernel's
# tiles): the twin of ../prefix_lm.py with the same Model, for CI and the GPU kernel's edge tiles.
import torch
import torch.nn as nn

# As ../prefix_lm.py (bench/attention/tolerances.py).
HONE_ATOL = 5e-2
HONE_RTOL = 5e-2


class Model(nn.Module):
    """out = softmax(q @ k^T * scale, masked to kv_idx < prefix or kv_idx <= q_idx) @ v,
    scale = 1 / sqrt(head_dim), for q, k, v of shape (batch, heads, seq, head_dim). Everything
    stays bf16, as eager code does.

    As a FlexAttention mask_mod (no score_mod):

        def mask_mod(b, h, q_idx, kv_idx):
            return (kv_idx < prefix) | (kv_idx <= q_idx)
    """

    def __init__(self, prefix: int):
        super().__init__()
        self.prefix = prefix

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scale = q.shape[-1] ** -0.5
        scores = (q @ k.transpose(-2, -1)) * scale
        q_idx = torch.arange(q.shape[-2], device=q.device)[:, None]
        kv_idx = torch.arange(k.shape[-2], device=q.device)[None, :]
        visible = (kv_idx < self.prefix) | (kv_idx <= q_idx)
        scores = scores.masked_fill(~visible, float("-inf"))
        p = torch.softmax(scores, dim=-1)
        return p @ v


batch = 1
heads = 2
seq = 600
head_dim = 64
prefix = 512


def get_inputs():
    shape = (batch, heads, seq, head_dim)
    return [torch.randn(shape, dtype=torch.bfloat16) for _ in range(3)]


def get_init_inputs():
    return [prefix]
