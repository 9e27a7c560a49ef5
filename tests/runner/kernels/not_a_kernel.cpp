// tests/runner/kernels/not_a_kernel.cpp: a shared library that is not a hone kernel.
extern "C" int add(int a, int b) { return a + b; }
