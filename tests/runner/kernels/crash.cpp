// tests/runner/kernels/crash.cpp: a raw-form CPU kernel whose forward dies of SIGSEGV.
#include <cstdint>

#include "hone.h"

void forward(hone::In<float>, hone::Out<float> out) {
  volatile std::uintptr_t address = 8;  // not a constant the compiler could reason about
  volatile float* nowhere = reinterpret_cast<volatile float*>(address);
  *nowhere = static_cast<float>(out.numel());
}
