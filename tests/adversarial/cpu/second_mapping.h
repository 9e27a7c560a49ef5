// tests/adversarial/cpu/second_mapping.h: the alias cheats' trick: `x` seen through a second
// virtual mapping of the same shared pages (mremap with an old size of 0 duplicates a shared
// mapping), so no comparison of addresses finds that the result is the input.
#pragma once

#include <sys/mman.h>
#include <torch/extension.h>

#include <cstdint>

inline torch::Tensor second_mapping(const torch::Tensor& x) {
  const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(x.data_ptr());
  const std::uintptr_t page = 4096, base = at & ~(page - 1);
  const std::size_t length = ((at + x.nbytes() + page - 1) & ~(page - 1)) - base;
  void* again = mremap(reinterpret_cast<void*>(base), 0, length, MREMAP_MAYMOVE);
  TORCH_CHECK(again != MAP_FAILED, "mremap failed");
  float* data = reinterpret_cast<float*>(static_cast<char*>(again) + (at - base));
  return torch::from_blob(data, x.sizes(), x.strides(), [again, length](void*) { munmap(again, length); },
                          x.options());
}
