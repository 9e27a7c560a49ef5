// engine/machine_code.cpp: Engine::machine_code, a build's PTX (its .loc lines) or SASS (nvdisasm
// --print-line-info of its cubin) for the editor's machine-code view.
#include "engine/engine_impl.h"
#include "engine/last_profile.h"
#include "support/hash.h"
#include "support/paths.h"
#include "support/subprocess.h"
#include "toolchain/listing_counters.h"
#include "toolchain/machine_listing.h"
#include "toolchain/tools.h"

namespace hone {

namespace fs = std::filesystem;

namespace {

constexpr const char* kNoProfileYet = "no profile of this build yet: run Profile to see per-line counters";

// The last profile's counters of this build beside the SASS lines, or the note saying why not.
void attach_counters(MachineCode& out, const toolchain::FunctionListing& listing, const fs::path& workspace,
                     const std::string& build_key) {
  std::optional<LastSassProfile> last = load_last_sass_profile(workspace, build_key);
  if (!last) {
    out.counters_note = kNoProfileYet;
    return;
  }
  out.profiled_at = last->profiled_at;
  const protocol::SassCounters& c = last->counters;
  if (!c.available) {
    out.counters_note = "the last profile of this build (" + last->profiled_at + ") has no per-line counters: " + c.message;
    return;
  }
  const protocol::SassKernel* kernel = toolchain::kernel_counters_for(c, listing);
  if (!kernel) {
    out.counters_note = "the last profile of this build (" + last->profiled_at + ") did not launch " + listing.name +
                        (c.kernels_dropped > 0 ? " (or it was past the bound of kernels counted)" : "");
    return;
  }
  const toolchain::ListingCounts counted = toolchain::count_listing(listing, *kernel);
  for (std::size_t i = 0; i < out.lines.size() && i < counted.lines.size(); ++i) out.lines[i].counters = counted.lines[i];
  for (const auto& s : counted.source_lines) out.source_counters.push_back({s.file, s.line, s.values});
  out.counter_metrics = c.metrics;
  out.counters_note = "counters of the last profile of this build (" + last->profiled_at + "), per SASS instruction";
  if (counted.unmatched > 0)
    out.counters_note += "; " + std::to_string(counted.unmatched) + " counted offsets have no instruction in this listing";
  if (c.instructions_dropped > 0)
    out.counters_note += "; " + std::to_string(c.instructions_dropped) + " instructions past the bound were not kept";
}

}  // namespace

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
  for (const auto& l : pick->lines) out.lines.push_back({l.text, l.file, l.line, std::nullopt});
  if (request.kind == "sass") {
    if (out.mapped)
      attach_counters(out, *pick, impl_->workspace, built.key);
    else
      out.counters_note = "no nvdisasm here: the SASS has no instruction offsets to put counters beside";
  }
  return out;
}

}  // namespace hone
