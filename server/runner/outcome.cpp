// runner/outcome.cpp: forward failures as op errors.
#include "runner/outcome.h"

#include "runner/wire.h"

namespace hone::runner {

void raise_forward_failure(int code, const Kernel& kernel, const std::string& what) {
  const std::string message = kernel.message();
  if (code == 2) {
    const std::string name = message.rfind("cuda", 0) == 0 ? message.substr(0, message.find(':')) : "";
    throw OpError(ErrorKind::LaunchError, "CUDA launch error in forward (" + what + "): " + message, name);
  }
  if (code == 1) throw OpError(ErrorKind::ForwardError, "forward failed (" + what + "): " + message);
  throw OpError(ErrorKind::ForwardError, "forward returned the unknown code " + std::to_string(code) + " (" + what +
                                             ")" + (message.empty() ? "" : ": " + message));
}

void synchronize_after(Backend& backend, const std::string& what) {
  try {
    backend.synchronize();
  } catch (const CudaFailure& f) {
    throw OpError(f.sticky ? ErrorKind::CudaError : ErrorKind::LaunchError,
                  std::string("CUDA error after forward (") + what + "): " + f.what(), f.name);
  }
}

}  // namespace hone::runner
