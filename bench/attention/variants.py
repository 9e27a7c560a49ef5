"""The attention variants of tasks/attention/ as FlexAttention-style score_mod / mask_mod functions
of tensors (the same text as each task's docstring), how scaled_dot_product_attention can express
each one, and deliberately wrong versions of each (used by tolerances.py to show that a task's
tolerance rejects them). Used by tolerances.py (CPU, torch 1.13) and benchmark.py (GPU, torch 2.x);
the functions broadcast, so they serve both flex_attention and dense evaluation."""
import importlib.util
import math
import os
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Tuple

import torch

LOG2E = 1.4426950408889634
TASKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tasks", "attention")
NAMES = ["relative_position", "alibi", "causal", "softcap", "sliding_window", "causal_fp32", "prefix_lm"]

ScoreMod = Callable[[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]
MaskMod = Callable[[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]


@dataclass
class Variant:
    """One variant: its mods and how SDPA expresses it ("causal": is_causal; "bias": a float
    attn_mask; "mask": a boolean attn_mask; None: SDPA cannot express it)."""

    name: str
    score_mod: Optional[ScoreMod]
    mask_mod: Optional[MaskMod]
    sdpa: Optional[str]
    wrong: List[Tuple[str, Optional[ScoreMod], Optional[MaskMod]]] = field(default_factory=list)


def load_task(name: str, folder: str = TASKS):
    """The task module tasks/attention/<name>.py (or another folder's, e.g. cpu/)."""
    path = os.path.join(folder, name + ".py")
    spec = importlib.util.spec_from_file_location(f"attention_task_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def causal(b, h, q_idx, kv_idx):
    return kv_idx <= q_idx


def variant(name: str, task, heads: int) -> Variant:
    """The variant `name` with the parameters of its task module (cap, window, prefix)."""
    if name == "relative_position":
        return Variant(name, lambda s, b, h, q, kv: s + (q - kv), None, "bias", [
            ("bias not multiplied by log2(e) in a base-2 softmax", lambda s, b, h, q, kv: s + (q - kv) / LOG2E, None),
            ("bias with the wrong sign", lambda s, b, h, q, kv: s + (kv - q), None),
        ])
    if name == "alibi":
        def slope(h, heads=heads):
            return torch.exp2(-8.0 * (h + 1) / heads)
        return Variant(name, lambda s, b, h, q, kv: s + slope(h) * (kv - q), causal, "bias", [
            ("slopes 2^(-8h/H) counted from h = 0", lambda s, b, h, q, kv: s + slope(h - 1) * (kv - q), causal),
            ("no causal mask", lambda s, b, h, q, kv: s + slope(h) * (kv - q), None),
        ])
    if name in ("causal", "causal_fp32"):
        return Variant(name, None, causal, "causal", [
            ("causal mask off by one (kv_idx < q_idx)", None, lambda b, h, q, kv: kv < q),
            ("causal mask off by one (kv_idx <= q_idx + 1)", None, lambda b, h, q, kv: kv <= q + 1),
        ])
    if name == "softcap":
        cap = task.cap
        return Variant(name, lambda s, b, h, q, kv: cap * torch.tanh(s / cap), None, None, [
            ("no soft-capping", None, None),
            (f"cap {cap * 0.6:g} instead of {cap:g}", lambda s, b, h, q, kv: cap * 0.6 * torch.tanh(s / (cap * 0.6)), None),
        ])
    if name == "sliding_window":
        w = task.window
        return Variant(name, None, lambda b, h, q, kv: (kv <= q) & (q - kv <= w), "mask", [
            ("plain causal (no window)", None, causal),
            ("window off by one (q_idx - kv_idx < window)", None, lambda b, h, q, kv: (kv <= q) & (q - kv < w)),
        ])
    if name == "prefix_lm":
        p = task.prefix
        return Variant(name, None, lambda b, h, q, kv: (kv < p) | (kv <= q), "mask", [
            ("plain causal (no prefix)", None, causal),
            ("prefix off by one (kv_idx <= prefix)", None, lambda b, h, q, kv: (kv <= p) | (kv <= q)),
        ])
    raise KeyError(name)


def index_grids(batch: int, heads: int, seq_q: int, seq_k: int, device):
    """b, h, q_idx, kv_idx as broadcasting integer tensors of shape (B,1,1,1) ... (1,1,1,Sk)."""
    def grid(n, dim):
        shape = [1, 1, 1, 1]
        shape[dim] = n
        return torch.arange(n, device=device).view(shape)
    return grid(batch, 0), grid(heads, 1), grid(seq_q, 2), grid(seq_k, 3)


def dense_bias(v: Variant, batch: int, heads: int, seq_q: int, seq_k: int, device) -> torch.Tensor:
    """score_mod(0) + (-inf where masked) as a float32 tensor broadcastable to the scores: the
    attn_mask SDPA gets for "bias" and "mask" variants whose score_mod only adds a bias."""
    b, h, q, kv = index_grids(batch, heads, seq_q, seq_k, device)
    zero = torch.zeros((), device=device)
    bias = v.score_mod(zero, b, h, q, kv).float() if v.score_mod else torch.zeros((1, 1, seq_q, seq_k), device=device)
    if v.mask_mod:
        bias = bias.masked_fill(~v.mask_mod(b, h, q, kv), float("-inf"))
    return bias


def flash_emulation(q, k, v, score_mod: Optional[ScoreMod], mask_mod: Optional[MaskMod],
                    block_n: int = 64, p_dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    """What tasks/attention/flash_attention.cuh computes, in torch: float32 scores from the inputs,
    the mods, an online base-2 softmax over key tiles of `block_n`, the probabilities rounded to
    `p_dtype` (the input dtype by default, bf16 for bf16 inputs) for the product with v, float32
    accumulation, one division by the row sum at the end, the output rounded to the input dtype."""
    batch, heads, seq_q, dim = q.shape
    seq_k = k.shape[-2]
    p_dtype = p_dtype or q.dtype
    scale = 1.0 / math.sqrt(dim)
    qf, kf, vf = q.float(), k.float(), v.float()
    m = torch.full((batch, heads, seq_q, 1), float("-inf"))
    l = torch.zeros((batch, heads, seq_q, 1))
    acc = torch.zeros((batch, heads, seq_q, dim))
    b, h, qi, _ = index_grids(batch, heads, seq_q, seq_k, q.device)
    for n0 in range(0, seq_k, block_n):
        n1 = min(n0 + block_n, seq_k)
        kv = torch.arange(n0, n1).view(1, 1, 1, -1)
        s = (qf @ kf[:, :, n0:n1].transpose(-2, -1)) * scale
        if score_mod:
            s = score_mod(s, b, h, qi, kv)
        s = s * LOG2E
        if mask_mod:
            s = s.masked_fill(~mask_mod(b, h, qi, kv), float("-inf"))
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        m_use = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        alpha = torch.exp2(m - m_use)
        p = torch.exp2(s - m_use)
        l = l * alpha + p.sum(-1, keepdim=True)
        acc = acc * alpha + p.to(p_dtype).float() @ vf[:, :, n0:n1]
        m = m_new
    out = torch.where(l > 0, acc / l, torch.zeros_like(acc))
    return out.to(q.dtype)
