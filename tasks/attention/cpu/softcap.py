# softcap at a CPU-sized shape (2x4x197x64; the sequence is no multiple of the GPU kernel's
# tiles): the twin of ../softcap.py with the same Model, for CI and the GPU kernel's edge tiles.
import torch
import torch.nn as nn

# As ../softcap.py (bench/attention/tolerances.py).
HONE_ATOL = 5e-2
HONE_RTOL = 5e-2


class Model(nn.Module):
    """out = softmax(cap * tanh(q @ k^T * scale / cap)) @ v, scale = 1 / sqrt(head_dim), cap = 50
(Gemma 2's attention cap), for bf16 q, k, v of shape (batch, heads, seq, head_dim).

    As a FlexAttention score_mod (no mask_mod):

        def score_mod(score, b, h, q_idx, kv_idx):
            return cap * tanh(score / cap)

    A kernel that computes the softmax in base 2 (qk_scale = sm_scale * 1.44269504) can cap the
    base-2 score directly with cap2 = cap * 1.44269504: cap2 * tanh(score2 / cap2).
    The inputs are scaled (q and k by 2.5: scores with a standard deviation of about 6, the
    largest near 25) so that the cap changes the result; with unit inputs it barely does. The
    scores are float32 (as a score_mod sees them in FlexAttention): rounded to bf16, scores near
    25 are off by up to 0.06, which moves the softmax as much as the cap itself does, and no
    tolerance could tell a capped kernel from an uncapped one. The probabilities are rounded to
    bf16 for the product with v.
    """

    def __init__(self, cap: float):
        super().__init__()
        self.cap = cap

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scale = q.shape[-1] ** -0.5
        scores = (q.float() @ k.float().transpose(-2, -1)) * scale
        scores = self.cap * torch.tanh(scores / self.cap)
        p = torch.softmax(scores, dim=-1)
        return p.to(v.dtype) @ v


batch = 2
heads = 4
seq = 197
head_dim = 64
cap = 50.0
input_scale = 2.5


def get_inputs():
    shape = (batch, heads, seq, head_dim)
    q = torch.randn(shape, dtype=torch.bfloat16) * input_scale
    k = torch.randn(shape, dtype=torch.bfloat16) * input_scale
    v = torch.randn(shape, dtype=torch.bfloat16)
    return [q, k, v]


def get_init_inputs():
    return [cap]
