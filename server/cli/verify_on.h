// cli/verify_on.h: `--verify-on all` for check and optimize: the kernel checked once on every GPU
// kind of the pool (a queue per kind), one verdict line per kind. Main thread.
#pragma once

#include <vector>

#include "engine/engine.h"

namespace hone::cli {

// The request checked on each kind the pool has (its gpu_kind set in turn); the verdicts in the
// order of the kinds. Throws EngineError.
std::vector<protocol::Verdict> verify_on_every_kind(Engine& engine, CheckRequest request, const CallContext& ctx);

// "on NVIDIA H200 (GPU 0, GPU-...): correct · 41 µs · 1.80× eager", one line per verdict.
std::string verify_on_text(const std::vector<protocol::Verdict>& verdicts);

}  // namespace hone::cli
