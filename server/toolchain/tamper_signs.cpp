// toolchain/tamper_signs.cpp: ELF symbol tables (glibc's <elf.h> layouts) and the signs in them.
#include "toolchain/tamper_signs.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <stdexcept>

namespace hone::toolchain {
namespace {

template <typename T>
T read_at(const std::string& bytes, std::size_t offset, const char* what) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) throw std::runtime_error(std::string("truncated ELF file: ") + what);
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + file.string());
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<ElfSymbol> symbols_of(const std::string& bytes) {
  if (bytes.size() < EI_NIDENT || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) throw std::runtime_error("not an ELF file");
  if (bytes[EI_CLASS] != ELFCLASS64 || bytes[EI_DATA] != ELFDATA2LSB) throw std::runtime_error("not a 64-bit little-endian ELF file");
  const auto header = read_at<Elf64_Ehdr>(bytes, 0, "header");
  if (header.e_shentsize != sizeof(Elf64_Shdr)) throw std::runtime_error("unexpected ELF section header size");
  std::vector<Elf64_Shdr> sections;
  for (std::size_t i = 0; i < header.e_shnum; ++i)
    sections.push_back(read_at<Elf64_Shdr>(bytes, header.e_shoff + i * sizeof(Elf64_Shdr), "section header"));
  auto table = std::find_if(sections.begin(), sections.end(), [](const Elf64_Shdr& s) { return s.sh_type == SHT_DYNSYM; });
  if (table == sections.end())
    table = std::find_if(sections.begin(), sections.end(), [](const Elf64_Shdr& s) { return s.sh_type == SHT_SYMTAB; });
  if (table == sections.end()) return {};
  if (table->sh_link >= sections.size()) throw std::runtime_error("ELF symbol table without its string table");
  const Elf64_Shdr& strings = sections[table->sh_link];
  if (strings.sh_offset > bytes.size() || bytes.size() - strings.sh_offset < strings.sh_size)
    throw std::runtime_error("truncated ELF string table");
  std::vector<ElfSymbol> out;
  const std::size_t count = table->sh_entsize ? table->sh_size / table->sh_entsize : 0;
  for (std::size_t i = 1; i < count; ++i) {
    const auto sym = read_at<Elf64_Sym>(bytes, table->sh_offset + i * table->sh_entsize, "symbol");
    if (sym.st_name >= strings.sh_size) continue;
    const char* start = bytes.data() + strings.sh_offset + sym.st_name;
    const std::string name(start, strnlen(start, strings.sh_size - sym.st_name));
    if (name.empty()) continue;
    const unsigned bind = ELF64_ST_BIND(sym.st_info), type = ELF64_ST_TYPE(sym.st_info);
    out.push_back({name, sym.st_shndx != SHN_UNDEF, bind == STB_GLOBAL || bind == STB_WEAK,
                   type == STT_FUNC || type == STT_GNU_IFUNC});
  }
  return out;
}

// Imports no kernel needs; the versioned name (dlsym@GLIBC_2.34) never appears in .symtab, and
// .dynsym keeps versions apart from names.
const std::set<std::string>& suspicious_imports() {
  static const std::set<std::string> names{"dlsym",    "dlvsym",   "dlopen", "dlmopen",           "mprotect",
                                           "pkey_mprotect", "mremap", "ptrace", "process_vm_writev", "process_vm_readv"};
  return names;
}

// Unmangled definitions that would interpose CUDA's or libc's clocks and lookups for the process.
const std::regex& interposed() {
  static const std::regex pattern(
      "^(cuda[A-Z]\\w*|cu[A-Z][a-z]\\w*|clock_gettime|gettimeofday|clock|time|dlsym|dlopen|Py\\w+|_Py\\w+)$");
  return pattern;
}

}  // namespace

std::vector<ElfSymbol> read_elf_symbols(const std::filesystem::path& file) { return symbols_of(read_file(file)); }

std::vector<std::string> tamper_signs(const std::vector<ElfSymbol>& symbols, const std::string& bytes) {
  std::set<std::string> imports, python, defines;
  for (const ElfSymbol& s : symbols) {
    if (!s.defined) {
      if (suspicious_imports().count(s.name)) imports.insert(s.name);
      if (s.name.starts_with("Py") || s.name.starts_with("_Py")) python.insert(s.name);
    } else if (s.global && s.function && std::regex_match(s.name, interposed())) {
      defines.insert(s.name);
    }
  }
  std::vector<std::string> out;
  for (const auto& name : imports) out.push_back("imports " + name);
  if (!python.empty()) {
    std::string names;
    for (const auto& name : python) {
      if (names.size() > 60) {
        names += ", ...";
        break;
      }
      names += (names.empty() ? "" : ", ") + name;
    }
    out.push_back("imports the Python C API (" + names + ")");
  }
  for (const auto& name : defines) out.push_back("defines " + name + " (interposing the process's own)");
  for (const char* path : {"/proc/self/mem", "/proc/self/maps"})
    if (bytes.find(path) != std::string::npos) out.push_back(std::string("names ") + path);
  return out;
}

std::vector<std::string> scan_tamper_signs(const std::filesystem::path& file) {
  try {
    const std::string bytes = read_file(file);
    return tamper_signs(symbols_of(bytes), bytes);
  } catch (const std::exception& e) {
    return {std::string("could not be scanned (") + e.what() + ")"};
  }
}

}  // namespace hone::toolchain
