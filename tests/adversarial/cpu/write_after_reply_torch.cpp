// hone: task=../../../tasks/relu.py
// Tamperer, torch form: returns a fresh, unwritten tensor at once and fills it from a thread
// 300 ms later. The runner copies the result as the call returns; the judge sees allocator poison.
#include <torch/extension.h>

#include <chrono>
#include <thread>

torch::Tensor forward(torch::Tensor x) {
  auto in = x.contiguous();
  auto out = torch::empty_like(in);
  std::thread([in, out]() mutable {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    out.copy_(torch::relu(in));
  }).detach();
  return out;
}
