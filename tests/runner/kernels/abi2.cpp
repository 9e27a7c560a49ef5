// tests/runner/kernels/abi2.cpp: a library that claims a raw ABI version this runner does not speak.
#include <cstdint>

extern "C" std::int32_t hone_abi_version() { return 2; }
extern "C" const char* hone_raw_signature() { return "in:float32,out:float32"; }
extern "C" std::int32_t hone_raw_forward(const void*, std::int32_t, void*, char*, std::int32_t) { return 0; }
