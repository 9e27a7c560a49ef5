// Ends its own process with status 0 from forward: neither a crash nor a result.
// hone: task=relu_small.py
#include <cstdlib>

#include "hone.h"

void forward(hone::In<float>, hone::Out<float>, hone::Stream) { std::exit(0); }
