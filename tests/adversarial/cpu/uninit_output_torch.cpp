// hone: task=../tasks/relu_positive.py
// Cheat: returns a fresh tensor without writing it. Without poisoning, the allocator hands back
// memory that just held the reference's output for these inputs, and the check passes (the
// "150x" kernel of Sakana's AI CUDA Engineer did this).
#include <torch/extension.h>

torch::Tensor forward(torch::Tensor x) { return torch::empty_like(x); }
