// runner/records_op.cpp: one traced call and its activity records.
#include "runner/records_op.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>

#include "runner/args.h"
#include "runner/outcome.h"
#include "runner/wire.h"

namespace hone::runner {
namespace {

constexpr double kDefaultSpinUs = 1000;

nlohmann::json activity(const nlohmann::json& record, const std::string& name, const char* kind) {
  return {{"name", name},
          {"kind", kind},
          {"stream", record.value("stream", 0)},
          {"start_ns", record.value("start_ns", std::uint64_t{0})},
          {"end_ns", record.value("end_ns", std::uint64_t{0})}};
}

std::string copy_name(const std::string& kind) {
  std::string k = kind;
  for (char& c : k) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (k.size() == 4) k = std::string(1, k[0]) + "to" + std::string(1, k[3]);  // HTOD -> HtoD
  return "Memcpy " + k;
}

}  // namespace

std::string cupti_error_text(const nlohmann::json& answer) {
  const auto& e = answer.value("error", nlohmann::json::object());
  return e.value("code", std::string("error")) + ": " + e.value("message", std::string(""));
}

nlohmann::json activities_json(const nlohmann::json& trace, nlohmann::json& caller_stream) {
  std::vector<nlohmann::json> all;
  for (const auto& k : trace.value("kernels", nlohmann::json::array())) all.push_back(activity(k, k.value("name", ""), "kernel"));
  for (const auto& m : trace.value("memcpys", nlohmann::json::array()))
    all.push_back(activity(m, copy_name(m.value("kind", "other")), "memcpy"));
  for (const auto& m : trace.value("memsets", nlohmann::json::array())) all.push_back(activity(m, "Memset", "memset"));
  std::sort(all.begin(), all.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a["start_ns"].get<std::uint64_t>() < b["start_ns"].get<std::uint64_t>();
  });
  const std::uint64_t zero = all.empty() ? 0 : all.front()["start_ns"].get<std::uint64_t>();
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : all) {
    if (a["name"] == "hone_spin" && caller_stream.is_null()) caller_stream = a["stream"];
    out.push_back({{"name", a["name"]},
                   {"kind", a["kind"]},
                   {"stream", a["stream"]},
                   {"start_us", static_cast<double>(a["start_ns"].get<std::uint64_t>() - zero) / 1000.0},
                   {"end_us", static_cast<double>(a["end_ns"].get<std::uint64_t>() - zero) / 1000.0}});
  }
  return out;
}

namespace {

nlohmann::json host_records(OpContext& ctx, ArgPack& pack) {
  const hone::ArgDesc* args = pack.prepare();
  const auto start = std::chrono::steady_clock::now();
  const int code = ctx.kernel.forward(args, pack.count(), nullptr);
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  if (code != 0) raise_forward_failure(code, ctx.kernel, "records call");
  return {{"activities", nlohmann::json::array()}, {"caller_stream", nullptr}, {"timed_us", us},
          {"library_ops", nlohmann::json::array()}};
}

}  // namespace

nlohmann::json run_records(const nlohmann::json& request, OpContext& ctx, CuptiLibrary& cupti) {
  ArgPack pack(parse_args(require_array(request, "args", "records"), ctx.arenas, "records.args"),
               parse_buffers(require_array(request, "outputs", "records"), ctx.arenas, "records.outputs"));
  const nlohmann::json* spin = find(request, "spin_us");
  const double spin_us = spin ? read_double(*spin, "records.spin_us") : kDefaultSpinUs;
  if (!(spin_us >= 0 && spin_us <= 1e7)) bad_request("records.spin_us must be 0..1e7");
  log_line("records call");
  if (!ctx.backend.is_cuda()) return host_records(ctx, pack);
  cupti.load();
  Backend& b = ctx.backend;
  b.synchronize();
  b.reserve_marks(2);
  const hone::ArgDesc* args = pack.prepare();
  const nlohmann::json begun = cupti.begin({{"activity", true}});
  if (!begun.value("ok", false)) throw OpError(ErrorKind::Unsupported, "records: hone_cupti_begin: " + cupti_error_text(begun));
  int code = 0;
  try {
    b.spin(spin_us);
    b.mark(0);
    code = ctx.kernel.forward(args, pack.count(), b.stream());
    b.mark(1);
    b.marker();
    synchronize_after(b, "records call");
  } catch (...) {
    cupti.end();
    throw;
  }
  const nlohmann::json ended = cupti.end();
  if (code != 0) raise_forward_failure(code, ctx.kernel, "records call");
  if (!ended.value("ok", false)) throw OpError(ErrorKind::Internal, "records: hone_cupti_end: " + cupti_error_text(ended));
  nlohmann::json caller_stream = nullptr;
  nlohmann::json activities = activities_json(ended.value("activity", nlohmann::json::object()), caller_stream);
  return {{"activities", activities}, {"caller_stream", caller_stream}, {"timed_us", b.elapsed_us(0, 1)},
          {"library_ops", nlohmann::json::array()}};
}

}  // namespace hone::runner
