// engine/kernel_files.cpp: kernel file kinds, hone kernels and outlines from the toolchain's
// source analysis and task pairing.
#include "engine/kernel_files.h"

#include "toolchain/demangle.h"
#include "toolchain/kernel_source.h"
#include "toolchain/task_pairing.h"

namespace hone {

KernelFile kernel_file_kind(const std::filesystem::path& path) {
  auto type = toolchain::kernel_file_type(path);
  if (!type) return KernelFile::None;
  return type->header ? KernelFile::Header : KernelFile::Source;
}

bool is_hone_kernel(const std::filesystem::path& path, std::string_view text) {
  auto language = toolchain::language_for_path(path);
  if (!language) return false;
  if (*language == toolchain::KernelLanguage::Cuda) return true;
  try {
    toolchain::SourceFacts facts = toolchain::analyze_kernel_source(path, text);
    if (facts.form || facts.forward) return true;
  } catch (const std::exception&) {
    return false;
  }
  // A same-stem .py beside an ordinary C++ file is a coincidence, not a request to build it.
  toolchain::TaskPairing pairing = toolchain::find_task_for_kernel(path, text);
  return pairing.task && pairing.how != "same stem";
}

KernelOutline kernel_outline(const std::filesystem::path& path, std::string_view text) {
  KernelOutline outline;
  if (!toolchain::language_for_path(path)) return outline;
  toolchain::SourceFacts facts;
  try {
    facts = toolchain::analyze_kernel_source(path, text);
  } catch (const std::exception&) {
    return outline;
  }
  auto in_file = [&](const std::filesystem::path& file) { return file.empty() || file.lexically_normal() == path; };
  if (facts.forward && facts.forward->line > 0 && in_file(facts.forward->file)) outline.forward_line = facts.forward->line;
  for (const auto& global : facts.globals)
    if (global.line > 0 && in_file(global.file)) outline.globals.push_back({global.name, global.line});
  return outline;
}

std::string kernel_base_name(const std::string& demangled) { return toolchain::function_base_name(demangled); }

}  // namespace hone
