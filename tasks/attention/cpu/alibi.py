# alibi at a CPU-sized shape (1x8x300x128; the sequence is no multiple of the GPU kernel's
# tiles): the twin of ../alibi.py with the same Model, for CI and the GPU kernel's edge tiles.
import torch
import torch.nn as nn

# As ../alibi.py (bench/attention/tolerances.py).
HONE_ATOL = 5e-2
HONE_RTOL = 5e-2


class Model(nn.Module):
    """out = softmax(q @ k^T * scale + slope[h] * (kv_idx - q_idx), causal) @ v,
    scale = 1 / sqrt(head_dim), for q, k, v of shape (batch, heads, seq, head_dim), with the
    standard ALiBi slopes slope[h] = 2^(-8 (h + 1) / heads) for h = 0 .. heads - 1.

    As a FlexAttention score_mod and mask_mod:

        def score_mod(score, b, h, q_idx, kv_idx):
            return score + slope[h] * (kv_idx - q_idx)

        def mask_mod(b, h, q_idx, kv_idx):
            return kv_idx <= q_idx

    The bias is added to the scaled score and is not scaled itself; a kernel that computes the
    softmax in base 2 (qk_scale = sm_scale * 1.44269504) adds slope[h] * (kv_idx - q_idx) *
    1.44269504. The bias is float32, so the softmax runs in float32 and its probabilities are
    rounded to bf16 for the product with v.
    """

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        heads, seq_q, seq_k = q.shape[1], q.shape[-2], k.shape[-2]
        scale = q.shape[-1] ** -0.5
        scores = (q @ k.transpose(-2, -1)) * scale
        slope = torch.pow(2.0, -8.0 * torch.arange(1, heads + 1, device=q.device, dtype=torch.float32) / heads)
        q_idx = torch.arange(seq_q, device=q.device)[:, None]
        kv_idx = torch.arange(seq_k, device=q.device)[None, :]
        bias = slope[:, None, None] * (kv_idx - q_idx)
        scores = (scores + bias).masked_fill(kv_idx > q_idx, float("-inf"))
        p = torch.softmax(scores, dim=-1)
        return p.to(v.dtype) @ v


batch = 1
heads = 8
seq = 300
head_dim = 128


def get_inputs():
    shape = (batch, heads, seq, head_dim)
    return [torch.randn(shape, dtype=torch.bfloat16) for _ in range(3)]


def get_init_inputs():
    return []
