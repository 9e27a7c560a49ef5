// toolchain/tamper_signs.h: what a built kernel imports or defines that no kernel needs and a
// tamperer does (issue 13): the dynamic loader's lookups (dlsym, dlopen), changing page
// protections (mprotect), another process's or its own memory (ptrace, process_vm_writev,
// /proc/self/mem), the Python C API, and definitions of CUDA runtime/driver or libc clock entry
// points that would interpose them. Read from the ELF symbol table of the object that holds the
// kernel's own code (CUDA: nvcc's host object, before the static CUDA runtime, which needs dlopen
// itself, is linked in; C++: the library, which links nothing else statically). Each sign is one
// phrase ("imports mprotect"). Called by the KernelBuilder from any thread.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace hone::toolchain {

struct ElfSymbol {
  std::string name;
  bool defined = false;   // false: an import (undefined)
  bool global = false;    // global or weak binding
  bool function = false;  // STT_FUNC (or STT_GNU_IFUNC)
};

// The symbols of an ELF64 little-endian file's .dynsym (a shared library) or else .symtab (an
// object); throws std::runtime_error for a file that is not such an ELF file.
std::vector<ElfSymbol> read_elf_symbols(const std::filesystem::path& file);

// The signs among `symbols` and in the file's bytes (`bytes`: its contents, for strings such as
// /proc/self/mem), in a stable order.
std::vector<std::string> tamper_signs(const std::vector<ElfSymbol>& symbols, const std::string& bytes);

// Both of the above for one file; a file that cannot be read gives one sign saying so.
std::vector<std::string> scan_tamper_signs(const std::filesystem::path& file);

}  // namespace hone::toolchain
