// cupti/driver.h: the few CUDA driver calls libhone_cupti needs, resolved at run time from the
// libcuda.so.1 the process already uses (linking it would stop the library from loading on a
// machine without a driver, where the offline Host API queries still work).
#pragma once

#include <cuda.h>

namespace hone::cupti {

// The calling thread's current context; throws CuptiFailure("no_device") when there is no
// driver or no current context.
CUcontext current_context();
// The device ordinal of the current context.
int current_device();
// cuCtxSynchronize on the current context; throws on failure.
void synchronize_context();

}  // namespace hone::cupti
