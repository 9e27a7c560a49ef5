// runner/vmm_import.h: importing a CUDA VMM allocation another process exported as a POSIX fd
// (cuMemImportFromShareableHandle, cuMemAddressReserve, cuMemMap, cuMemSetAccess), with the
// driver entry points taken from the CUDA runtime (so hone-runner starts where no driver is
// installed). Called by the CUDA backend on the main thread.
#pragma once

#include <cstddef>
#include <memory>

#include "runner/backend.h"

namespace hone::runner {

// Maps the allocation behind `fd` read-write for device `device` (`bytes` rounded up to the
// allocation's granularity). The fd may be closed afterwards. Throws OpError (internal) naming
// the driver call and its error.
std::unique_ptr<ImportedMemory> import_vmm_fd(int fd, std::size_t bytes, int device);

}  // namespace hone::runner
