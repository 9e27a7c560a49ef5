// toolchain/instruction_facts.h: static counts of memory and tensor-core instructions per kernel,
// read from the PTX (everywhere: `ld.global.v4.f32` is a 128-bit load) and from the SASS printed
// by `cuobjdump -sass` (where cuobjdump exists: LDG.E.128, STL, HMMA/HGMMA ...). Used by the
// KernelBuilder; pure functions, any thread.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "protocol/build_report.h"

namespace hone::toolchain {

// Entry name (mangled) -> facts, for every `.entry` in a PTX module.
std::map<std::string, protocol::InstructionFacts> parse_ptx_facts(std::string_view ptx);

// Function name (mangled) -> facts, for every "Function : NAME" section of `cuobjdump -sass`.
std::map<std::string, protocol::InstructionFacts> parse_sass_facts(std::string_view sass);

}  // namespace hone::toolchain
