// tests/runner/kernels/fails.cpp: a raw-form CPU kernel whose forward reports an error.
#include "hone.h"

void forward(hone::In<float>, hone::Out<float>) { throw hone::Error("row 3 is not finite (the test kernel always fails)"); }
