// hone's stand-in for <torch/extension.h> when building torch-form kernels: hone generates the
// operator registration itself, so the Python and pybind11 parts of the real header (and the
// Python headers they need) are left out. Everything a kernel uses from torch:: stays. A light
// build (HONE_TORCH_LIGHT, hone's first attempt) parses only what the kernel uses.
#pragma once
#ifdef HONE_TORCH_LIGHT
#include "hone/torch_light.h"
#else
#include <torch/types.h>
#endif
