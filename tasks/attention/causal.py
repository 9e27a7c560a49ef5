# Causal attention (decoder self-attention, Llama-2-7B's 32 heads of 128). bf16,
# 4 x 32 x 4096 x 128.
import torch
import torch.nn as nn

# Measured by bench/attention/tolerances.py (see tasks/attention/README.md).
HONE_ATOL = 5e-2
HONE_RTOL = 5e-2


class Model(nn.Module):
    """out = softmax(q @ k^T * scale, masked to kv_idx <= q_idx) @ v, scale = 1 / sqrt(head_dim),
    for q, k, v of shape (batch, heads, seq, head_dim). Everything stays bf16, as eager code does.

    As a FlexAttention mask_mod (no score_mod):

        def mask_mod(b, h, q_idx, kv_idx):
            return kv_idx <= q_idx

    A kernel that skips the key tiles above the diagonal does half the work.
    """

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scale = q.shape[-1] ** -0.5
        scores = (q @ k.transpose(-2, -1)) * scale
        q_idx = torch.arange(q.shape[-2], device=q.device)[:, None]
        kv_idx = torch.arange(k.shape[-2], device=q.device)[None, :]
        scores = scores.masked_fill(kv_idx > q_idx, float("-inf"))
        p = torch.softmax(scores, dim=-1)
        return p @ v


batch = 4
heads = 32
seq = 4096
head_dim = 128


def get_inputs():
    shape = (batch, heads, seq, head_dim)
    return [torch.randn(shape, dtype=torch.bfloat16) for _ in range(3)]


def get_init_inputs():
    return []
