// hone: task=../tasks/relu_positive.py
// Cheat: returns a fresh tensor without writing it. PyTorch's caching allocator hands back the
// block that just held the reference's output for these inputs, so without poisoning the check
// passes (the "150x" kernel of Sakana's AI CUDA Engineer did this).
#include <torch/extension.h>

torch::Tensor forward(torch::Tensor x) { return torch::empty_like(x); }
