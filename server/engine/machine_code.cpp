// engine/machine_code.cpp: Engine::machine_code, a build's PTX (its .loc lines) or SASS (nvdisasm
// --print-line-info of its cubin) for the editor's machine-code view.
#include "engine/engine_impl.h"
#include "support/hash.h"
#include "support/paths.h"
#include "support/subprocess.h"
#include "toolchain/machine_listing.h"
#include "toolchain/tools.h"

namespace hone {

namespace fs = std::filesystem;

MachineCode Engine::machine_code(const MachineCodeRequest& request, const CallContext& ctx) {
  if (request.kind != "ptx" && request.kind != "sass")
    throw EngineError(EngineError::Kind::Usage, "machine code kind must be \"ptx\" or \"sass\", not \"" + request.kind + "\"");
  protocol::BuildReport built = build(BuildRequest{request.kernel, {}, true, false}, ctx);
  if (built.language != "cuda") throw EngineError(EngineError::Kind::Usage, request.kernel.path.string() + " is not a CUDA file: no PTX or SASS");
  const fs::path ptx = toolchain::build_ptx_path(cache_dir(), built.key);
  std::error_code ec;
  if (!built.compile.ok || !fs::is_regular_file(ptx, ec)) {
    std::string first;
    for (const auto& d : built.compile.diagnostics)
      if (d.severity == protocol::Severity::Error) {
        first = d.message;
        break;
      }
    throw EngineError(EngineError::Kind::Usage, request.kernel.path.string() + " does not compile" + (first.empty() ? "" : ": " + first));
  }
  MachineCode out;
  out.kind = request.kind;
  std::vector<toolchain::FunctionListing> listings;
  if (request.kind == "ptx") {
    listings = toolchain::ptx_listings(read_file(ptx));
  } else {
    const fs::path cubin = toolchain::build_cubin_path(cache_dir(), built.key);
    auto nvcc = toolchain::find_nvcc();
    std::optional<fs::path> nvdisasm = nvcc.tool ? toolchain::find_nvdisasm(nvcc.tool->path) : std::nullopt;
    std::optional<fs::path> cuobjdump = nvcc.tool ? toolchain::find_cuobjdump(nvcc.tool->path) : std::nullopt;
    if (!nvdisasm && !cuobjdump)
      throw EngineError(EngineError::Kind::Environment, "no nvdisasm or cuobjdump beside nvcc: SASS cannot be shown here (PTX can)");
    ProcessSpec spec;
    spec.argv = nvdisasm ? std::vector<std::string>{nvdisasm->string(), "--print-line-info", "--print-code", cubin.string()}
                         : std::vector<std::string>{cuobjdump->string(), "-sass", cubin.string()};
    spec.timeout = std::chrono::seconds(60);
    spec.stop = ctx.stop;
    ProcessResult r = run_process(spec);
    if (r.cancelled) throw EngineError(EngineError::Kind::Cancelled, "cancelled");
    if (!r.ok()) throw EngineError(EngineError::Kind::Environment, "cannot disassemble " + cubin.string() + ": " + r.describe(), r.err);
    if (nvdisasm) {
      listings = toolchain::sass_listings(r.out);
    } else {
      out.mapped = false;
      listings = toolchain::sass_listings(r.out);
      if (listings.empty()) {
        toolchain::FunctionListing all;
        all.name = "sass";
        std::size_t start = 0;
        while (start < r.out.size()) {
          std::size_t end = r.out.find('\n', start);
          if (end == std::string::npos) end = r.out.size();
          all.lines.push_back({r.out.substr(start, end - start), "", 0});
          start = end + 1;
        }
        listings.push_back(std::move(all));
      }
    }
  }
  for (const auto& f : listings) out.functions.push_back(f.name);
  const fs::path file = impl_->absolute(request.kernel.path);
  const toolchain::FunctionListing* pick = toolchain::pick_listing(listings, request.function, file, request.line);
  if (!pick) throw EngineError(EngineError::Kind::Usage, request.kernel.path.string() + " has no kernels: its " + request.kind + " is empty");
  out.symbol = pick->symbol;
  out.name = pick->name;
  for (const auto& l : pick->lines) out.lines.push_back({l.text, l.file, l.line});
  return out;
}

}  // namespace hone
