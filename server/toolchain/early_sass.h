// toolchain/early_sass.h: disassembles a build's cubin (cuobjdump -sass) while nvcc is still
// compiling the host side: nvcc writes the cubin, then the fatbin, then runs the host compiler,
// so once the fatbin exists the cubin is complete and the disassembly can overlap the rest of
// the compile. Used by the KernelBuilder around one nvcc run; the watching thread is private.
#pragma once

#include <atomic>
#include <filesystem>
#include <optional>
#include <thread>

#include "support/subprocess.h"
#include "toolchain/command_runner.h"

namespace hone::toolchain {

class EarlySass {
 public:
  // Starts watching: `command` (cuobjdump -sass CUBIN) runs once `marker` appears, or when
  // finish(true) is called first. Call finish exactly once, from the thread that built this.
  EarlySass(CompilerCommand command, std::filesystem::path cubin, std::filesystem::path marker);
  ~EarlySass();
  EarlySass(const EarlySass&) = delete;
  EarlySass& operator=(const EarlySass&) = delete;

  // nvcc has exited (`compiled`: it built the library). Waits for the disassembly and returns
  // it; nullopt when it did not run (no cubin, or the compile failed before the fatbin).
  std::optional<ProcessResult> finish(bool compiled);

 private:
  void watch();

  CompilerCommand command_;
  std::filesystem::path cubin_;
  std::filesystem::path marker_;
  std::atomic<bool> compiled_{false};
  std::atomic<bool> done_{false};
  std::optional<ProcessResult> result_;
  std::thread thread_;  // last: starts after the members above exist
};

}  // namespace hone::toolchain
