// hone's stand-in for <torch/extension.h> when building torch-form kernels: hone generates the
// operator registration itself, so the Python and pybind11 parts of the real header (and the
// Python headers they need) are left out. Everything a kernel uses from torch:: stays.
#pragma once
#include <torch/types.h>
