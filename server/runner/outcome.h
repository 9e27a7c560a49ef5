// runner/outcome.h: how a forward call's failures become op errors (shared by call, time and
// records): hone_raw_forward's non-zero codes, and CUDA errors found by the synchronize after it.
#pragma once

#include <string>

#include "runner/backend.h"
#include "runner/kernel.h"

namespace hone::runner {

// Throws OpError for a non-zero forward code: 1 forward_error, 2 launch_error (with the CUDA
// error's name), other codes forward_error. `what` names the call ("timed call 3").
[[noreturn]] void raise_forward_failure(int code, const Kernel& kernel, const std::string& what);

// backend.synchronize() after forward: a sticky CUDA error is cuda_error, any other launch_error.
void synchronize_after(Backend& backend, const std::string& what);

}  // namespace hone::runner
