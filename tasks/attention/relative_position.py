# Attention with a relative position bias computed from the positions: the variant NVIDIA's
# DeepSeek-R1 + verifier study (Feb 2025) started its loop with. bf16, 8 x 16 x 2048 x 64.
import torch
import torch.nn as nn

# Measured by bench/attention/tolerances.py (see tasks/attention/README.md).
HONE_ATOL = 5e-2
HONE_RTOL = 5e-2


class Model(nn.Module):
    """out = softmax(q @ k^T * scale + (q_idx - kv_idx)) @ v, scale = 1 / sqrt(head_dim),
    for q, k, v of shape (batch, heads, seq, head_dim).

    As a FlexAttention score_mod (no mask_mod: every query sees every key):

        def score_mod(score, b, h, q_idx, kv_idx):
            return score + (q_idx - kv_idx)

    The bias is added to the scaled score and is not scaled itself. A kernel that computes the
    softmax in base 2 (exp2) folds log2(e) into the scale, qk_scale = sm_scale * 1.44269504, so it
    computes qk * qk_scale + (q_idx - kv_idx) * 1.44269504: there the bias is multiplied by
    log2(e) too, while this reference does not scale the bias.

    The bias is float32 (bf16 cannot hold positions up to 2047 exactly), so the softmax runs in
    float32 and its probabilities are rounded to bf16 for the product with v.
    """

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scale = q.shape[-1] ** -0.5
        scores = (q @ k.transpose(-2, -1)) * scale
        q_idx = torch.arange(q.shape[-2], device=q.device)[:, None]
        kv_idx = torch.arange(k.shape[-2], device=q.device)[None, :]
        bias = (q_idx - kv_idx).to(torch.float32)
        p = torch.softmax(scores + bias, dim=-1)
        return p.to(v.dtype) @ v


batch = 8
heads = 16
seq = 2048
head_dim = 64


def get_inputs():
    shape = (batch, heads, seq, head_dim)
    return [torch.randn(shape, dtype=torch.bfloat16) for _ in range(3)]


def get_init_inputs():
    return []
