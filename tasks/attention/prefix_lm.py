# Prefix-LM attention (T5's prefix LM, UniLM, PaliGemma): the first `prefix` positions see each
# other in full, the rest attend causally. The example of adding a variant (tasks/attention/
# README.md). bf16, 8 x 16 x 2048 x 64, prefix 512.
import torch
import torch.nn as nn

# Measured by bench/attention/tolerances.py (see tasks/attention/README.md).
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


batch = 8
heads = 16
seq = 2048
head_dim = 64
prefix = 512


def get_inputs():
    shape = (batch, heads, seq, head_dim)
    return [torch.randn(shape, dtype=torch.bfloat16) for _ in range(3)]


def get_init_inputs():
    return [prefix]
