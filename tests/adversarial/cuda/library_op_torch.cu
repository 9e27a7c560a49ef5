// hone: task=../../../tasks/relu.py
// Passes, but must be flagged: calls PyTorch's own operator instead of implementing the kernel.
#include <torch/extension.h>

torch::Tensor forward(torch::Tensor x) { return torch::relu(x); }
