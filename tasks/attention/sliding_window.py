# Causal attention within a sliding window of earlier keys (Mistral, Gemma 2's local layers).
# bf16, 8 x 16 x 2048 x 64, window 256.
import torch
import torch.nn as nn

# Measured by bench/attention/tolerances.py (see tasks/attention/README.md).
HONE_ATOL = 5e-2
HONE_RTOL = 5e-2


class Model(nn.Module):
    """out = softmax(q @ k^T * scale, masked to q_idx - window <= kv_idx <= q_idx) @ v,
    scale = 1 / sqrt(head_dim), for q, k, v of shape (batch, heads, seq, head_dim): each query
    sees itself and the `window` keys before it. Everything stays bf16, as eager code does.

    As a FlexAttention mask_mod (no score_mod):

        def mask_mod(b, h, q_idx, kv_idx):
            return (kv_idx <= q_idx) & (q_idx - kv_idx <= window)

    A kernel that skips the key tiles outside the band does about window / seq of the work.
    """

    def __init__(self, window: int):
        super().__init__()
        self.window = window

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scale = q.shape[-1] ** -0.5
        scores = (q @ k.transpose(-2, -1)) * scale
        q_idx = torch.arange(q.shape[-2], device=q.device)[:, None]
        kv_idx = torch.arange(k.shape[-2], device=q.device)[None, :]
        visible = (kv_idx <= q_idx) & (q_idx - kv_idx <= self.window)
        scores = scores.masked_fill(~visible, float("-inf"))
        p = torch.softmax(scores, dim=-1)
        return p @ v


batch = 8
heads = 16
seq = 2048
head_dim = 64
window = 256


def get_inputs():
    shape = (batch, heads, seq, head_dim)
    return [torch.randn(shape, dtype=torch.bfloat16) for _ in range(3)]


def get_init_inputs():
    return [window]
