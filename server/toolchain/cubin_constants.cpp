// toolchain/cubin_constants.cpp: ELF section sizes of a cubin (<elf.h> layouts).
#include "toolchain/cubin_constants.h"

#include <elf.h>

#include <cstring>

#include "support/hash.h"

namespace hone::toolchain {

std::map<std::string, std::int64_t> cubin_constant_bytes(const std::filesystem::path& cubin) {
  std::map<std::string, std::int64_t> out;
  std::string data;
  try {
    data = read_file(cubin);
  } catch (const std::exception&) {
    return out;
  }
  if (data.size() < sizeof(Elf64_Ehdr) || std::memcmp(data.data(), ELFMAG, SELFMAG) != 0 || data[EI_CLASS] != ELFCLASS64)
    return out;
  Elf64_Ehdr eh;
  std::memcpy(&eh, data.data(), sizeof eh);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff == 0 || eh.e_shstrndx >= eh.e_shnum ||
      eh.e_shoff + std::uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr) > data.size())
    return out;
  auto section = [&](std::size_t i) {
    Elf64_Shdr sh;
    std::memcpy(&sh, data.data() + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
    return sh;
  };
  const Elf64_Shdr names = section(eh.e_shstrndx);
  if (names.sh_offset + names.sh_size > data.size()) return out;
  std::map<std::string, std::int64_t> params, compiler;
  std::int64_t module = 0;
  for (std::size_t i = 0; i < eh.e_shnum; ++i) {
    const Elf64_Shdr sh = section(i);
    if (sh.sh_name >= names.sh_size) continue;
    const char* start = data.data() + names.sh_offset + sh.sh_name;
    std::string name(start, strnlen(start, names.sh_size - sh.sh_name));
    const auto size = static_cast<std::int64_t>(sh.sh_size);
    if (name.rfind(".nv.constant0.", 0) == 0) params[name.substr(14)] += size;
    else if (name.rfind(".nv.constant2.", 0) == 0) compiler[name.substr(14)] += size;
    else if (name == ".nv.constant3") module += size;
  }
  for (const auto& [kernel, bytes] : params) {
    auto c = compiler.find(kernel);
    out[kernel] = bytes + (c == compiler.end() ? 0 : c->second) + module;
  }
  return out;
}

}  // namespace hone::toolchain
