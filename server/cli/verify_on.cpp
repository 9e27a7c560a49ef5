// cli/verify_on.cpp: a kernel re-checked on every GPU kind present.
#include "cli/verify_on.h"

#include <cstdio>

namespace hone::cli {

std::vector<protocol::Verdict> verify_on_every_kind(Engine& engine, CheckRequest request, const CallContext& ctx) {
  std::vector<CheckRequest> requests;
  for (const std::string& kind : engine.gpu_kinds(request.device, ctx)) {
    request.gpu_kind = kind;
    requests.push_back(request);
  }
  Engine::ManyResult r = engine.check_many(requests, ctx);
  std::vector<protocol::Verdict> out;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (r.errors[i]) throw *r.errors[i];
    out.push_back(std::move(*r.verdicts[i]));
  }
  return out;
}

std::string verify_on_text(const std::vector<protocol::Verdict>& verdicts) {
  std::string text;
  for (const auto& v : verdicts) {
    text += "on " + v.device.name + " (";
    if (v.device.index) text += "GPU " + std::to_string(*v.device.index);
    if (v.device.uuid) text += (v.device.index ? ", " : "") + *v.device.uuid;
    text += "): " + std::string(protocol::to_string(v.status));
    char buf[64];
    if (v.timing) {
      std::snprintf(buf, sizeof buf, " · %.1f µs", v.timing->p50_us);
      text += buf;
    }
    if (v.speedup && v.speedup->eager) {
      std::snprintf(buf, sizeof buf, " · %.2f× eager", *v.speedup->eager);
      text += buf;
    }
    if (v.reason) text += " · " + *v.reason;
    text += "\n";
  }
  return text;
}

}  // namespace hone::cli
