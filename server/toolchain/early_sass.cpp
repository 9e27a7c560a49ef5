// toolchain/early_sass.cpp: the cuobjdump run that overlaps nvcc's host compile.
#include "toolchain/early_sass.h"

#include <chrono>

namespace hone::toolchain {
namespace fs = std::filesystem;

EarlySass::EarlySass(CompilerCommand command, fs::path cubin, fs::path marker)
    : command_(std::move(command)), cubin_(std::move(cubin)), marker_(std::move(marker)), thread_([this] { watch(); }) {}

EarlySass::~EarlySass() {
  if (thread_.joinable()) finish(false);
}

void EarlySass::watch() {
  std::error_code ec;
  while (!done_.load()) {
    if (fs::exists(marker_, ec)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (done_.load() && !compiled_.load()) return;
  if (!fs::is_regular_file(cubin_, ec)) return;
  result_ = run_compiler(command_);
}

std::optional<ProcessResult> EarlySass::finish(bool compiled) {
  compiled_.store(compiled);
  done_.store(true);
  thread_.join();
  return std::move(result_);
}

}  // namespace hone::toolchain
