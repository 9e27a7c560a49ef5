// cupti/api.cpp: the C entry points of libhone_cupti.so (hone_cupti.h): JSON in, JSON out, every
// failure turned into {"ok": false, "error": {...}}.
#include "hone_cupti.h"

#include <cupti_activity.h>
#include <cupti_version.h>
#include <dlfcn.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "activity_trace.h"
#include "cupti_error.h"
#include "driver.h"
#include "host_config.h"
#include "kernel_prologue.h"
#include "range_session.h"
#include "sass_session.h"

namespace {

using hone::cupti::CuptiFailure;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::mutex g_mutex;
std::string g_answer;  // the string the last call returned

struct Recording {
  bool activity = false;
  std::unique_ptr<hone::cupti::RangeSession> range;
  std::unique_ptr<hone::cupti::SassSession> sass;
  std::unique_ptr<hone::cupti::KernelPrologue> prologue;  // "kernel_prologue": armed by hone_cupti_kernel_prologue
  Clock::time_point started;
  double setup_seconds = 0;
  std::optional<double> prepared_seconds;  // the range profiler's set-up, done ahead by hone_cupti_prepare
};
std::optional<Recording> g_recording;

// A range profiler session set up ahead by hone_cupti_prepare, not started: the next
// hone_cupti_begin asking for the same counters on the same context starts it.
struct Prepared {
  json key;  // the request's counter fields (range_key)
  CUcontext ctx = nullptr;
  std::unique_ptr<hone::cupti::RangeSession> session;
  double seconds = 0;
};
std::optional<Prepared> g_prepared;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

const char* answer(const json& j) {
  g_answer = j.dump();
  return g_answer.c_str();
}

json error_json(const std::string& code, const std::string& call, const std::string& message) {
  return {{"ok", false}, {"error", {{"code", code}, {"call", call}, {"message", message}}}};
}

// Runs `body`, turning every exception into an error answer.
template <typename Body>
const char* guarded(Body body) {
  std::lock_guard<std::mutex> lock(g_mutex);
  try {
    return answer(body());
  } catch (const CuptiFailure& e) {
    return answer(error_json(e.code(), e.call(), e.what()));
  } catch (const json::exception& e) {
    return answer(error_json("bad_request", "json", std::string("malformed request: ") + e.what()));
  } catch (const std::invalid_argument& e) {
    return answer(error_json("bad_request", "request", e.what()));
  } catch (const std::exception& e) {
    return answer(error_json("internal", "", e.what()));
  }
}

json parse(const char* text) {
  if (!text) return json::object();
  json j = json::parse(text);
  if (!j.is_object()) throw std::invalid_argument("the request must be a JSON object");
  return j;
}

// The candidates of a request: a set name ("default"/"full") or an explicit list of names.
hone::cupti::RangeRequest range_request(const json& req) {
  hone::cupti::RangeRequest r;
  const json& m = req.contains("metrics") ? req["metrics"] : req.value("set", json("default"));
  std::string dtype = req.value("dtype", std::string());
  if (m.is_string()) {
    r.set = m.get<std::string>();
    r.candidates = hone::cupti::metric_candidates(r.set, dtype);
    r.max_passes = r.set == "default" ? 2 : 0;
  } else if (m.is_array()) {
    r.set = "custom";
    for (const json& n : m) r.candidates.push_back({{n.get<std::string>()}});
    r.max_passes = 0;
  } else {
    throw std::invalid_argument("'metrics' must be \"default\", \"full\" or a list of metric names");
  }
  if (req.contains("max_passes")) r.max_passes = req["max_passes"].get<std::size_t>();
  r.max_ranges = req.value("max_ranges", r.max_ranges);
  return r;
}

// A request's "sass": true, or {"metrics": [names], "max_kernels": n, "max_instructions": n}.
hone::cupti::SassRequest sass_request(const json& req) {
  hone::cupti::SassRequest r;
  const json& s = req.at("sass");
  if (s.is_boolean()) return r;
  if (!s.is_object()) throw std::invalid_argument("'sass' must be true or an object {metrics?, max_kernels?, max_instructions?}");
  if (s.contains("metrics")) {
    r.metrics.clear();
    for (const json& n : s["metrics"]) r.metrics.push_back({n.get<std::string>()});
  }
  r.max_kernels = s.value("max_kernels", r.max_kernels);
  r.max_instructions = s.value("max_instructions", r.max_instructions);
  return r;
}

// The fields of a request that decide a range profiler session's configuration.
json range_key(const json& req) {
  json key = json::object();
  for (const char* field : {"metrics", "set", "dtype", "max_passes", "max_ranges"})
    if (req.contains(field)) key[field] = req[field];
  return key;
}

std::string cupti_library_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) && info.dli_fname) return info.dli_fname;
  return "";
}

}  // namespace

extern "C" const char* hone_cupti_version(void) {
  return guarded([] {
    std::uint32_t version = 0;
    hone::cupti::check(cuptiGetVersion(&version), "cuptiGetVersion");
    return json{{"ok", true},
                {"cupti_api_version", version},
                {"cupti_header_version", CUPTI_API_VERSION},
                {"cupti_library", cupti_library_path()}};
  });
}

extern "C" const char* hone_cupti_host_query(const char* request_json) {
  return guarded([&] {
    json req = parse(request_json);
    std::string chip = req.at("chip").get<std::string>();
    hone::cupti::RangeRequest r = range_request(req);
    hone::cupti::PackedMetrics packed = hone::cupti::pack_metrics(chip, {}, r.candidates, r.max_passes);
    json omitted = json::array();
    for (const auto& [name, reason] : packed.omitted) omitted.push_back({{"name", name}, {"reason", reason}});
    json collected = json::object();
    for (std::size_t i = 0; i < packed.collect.size(); ++i) collected[packed.report_as[i]] = packed.collect[i];
    return json{{"ok", true},          {"chip", chip},        {"set", r.set},
                {"passes", packed.passes}, {"collected", collected}, {"omitted", omitted},
                {"supported_chips", hone::cupti::supported_chips()}};
  });
}

extern "C" const char* hone_cupti_begin(const char* request_json) {
  return guarded([&] {
    if (g_recording) throw CuptiFailure("bad_request", "hone_cupti_begin", "a recording is already running: call hone_cupti_end first");
    json req = parse(request_json);
    Recording rec;
    rec.started = Clock::now();
    bool want_metrics = req.contains("metrics") && !req["metrics"].is_null();
    bool want_sass = req.contains("sass") && !req["sass"].is_null() && req["sass"] != false;
    rec.activity = req.value("activity", !want_metrics && !want_sass);
    if (want_sass && (want_metrics || rec.activity))
      throw std::invalid_argument("SASS metrics patch the kernels they count: record them on their own, without "
                                  "\"metrics\" or \"activity\" (whose numbers the patched code would change)");
    std::optional<hone::cupti::SassRequest> sass;
    if (want_sass) sass = sass_request(req);
    CUcontext ctx = hone::cupti::current_context();
    const bool use_prepared = want_metrics && g_prepared && g_prepared->ctx == ctx && g_prepared->key == range_key(req);
    // One range profiler per context, and SASS patching beside none: a prepared session that this
    // request does not use is discarded; an activity-only recording leaves it for a later begin.
    if (g_prepared && !use_prepared && (want_metrics || want_sass)) g_prepared.reset();
    if (req.value("kernel_prologue", false)) {
      if (want_sass) throw std::invalid_argument("a kernel prologue launches kernels of its own: not beside \"sass\"");
      rec.prologue = std::make_unique<hone::cupti::KernelPrologue>();
    }
    if (want_metrics) {
      hone::cupti::synchronize_context();
      if (use_prepared) {
        rec.range = std::move(g_prepared->session);
        rec.prepared_seconds = g_prepared->seconds;
        g_prepared.reset();
      } else {
        rec.range = std::make_unique<hone::cupti::RangeSession>(ctx, hone::cupti::current_device(), range_request(req));
      }
      rec.range->start();
    }
    if (sass) {
      hone::cupti::synchronize_context();
      rec.sass = std::make_unique<hone::cupti::SassSession>(ctx, hone::cupti::current_device(), *sass);
    }
    if (rec.activity) hone::cupti::activity_start();
    rec.setup_seconds = seconds_since(rec.started);
    rec.started = Clock::now();
    g_recording = std::move(rec);
    return json{{"ok", true}};
  });
}

extern "C" const char* hone_cupti_end(void) {
  return guarded([] {
    if (!g_recording) throw CuptiFailure("bad_request", "hone_cupti_end", "no recording is running: call hone_cupti_begin first");
    Recording rec = std::move(*g_recording);
    g_recording.reset();
    hone::cupti::synchronize_context();
    double region = seconds_since(rec.started);
    Clock::time_point collect = Clock::now();
    json out = {{"ok", true}};
    if (rec.prologue) {
      out["kernel_prologue"] = rec.prologue->summary();
      rec.prologue.reset();
    }
    if (rec.activity) out["activity"] = hone::cupti::activity_stop();
    json stages = rec.range ? rec.range->setup_stages() : json();
    if (rec.range) out["metrics"] = rec.range->finish();
    if (rec.sass) out["sass"] = rec.sass->finish();
    out["seconds"] = {{"setup", rec.setup_seconds}, {"region", region}, {"collect", seconds_since(collect)}};
    if (!stages.is_null()) out["seconds"]["setup_stages"] = stages;
    if (rec.prepared_seconds) out["seconds"]["prepared_ahead"] = *rec.prepared_seconds;
    return out;
  });
}

extern "C" const char* hone_cupti_prepare(const char* request_json) {
  return guarded([&] {
    if (g_recording) throw CuptiFailure("bad_request", "hone_cupti_prepare", "a recording is running: prepare before hone_cupti_begin");
    json req = parse(request_json);
    if (!req.contains("metrics") || req["metrics"].is_null())
      throw std::invalid_argument("hone_cupti_prepare sets up kernel counters: the request needs \"metrics\"");
    g_prepared.reset();
    const Clock::time_point started = Clock::now();
    CUcontext ctx = hone::cupti::current_context();
    hone::cupti::synchronize_context();
    Prepared p;
    p.key = range_key(req);
    p.ctx = ctx;
    p.session = std::make_unique<hone::cupti::RangeSession>(ctx, hone::cupti::current_device(), range_request(req));
    p.seconds = seconds_since(started);
    json answer = {{"ok", true}, {"seconds", {{"setup", p.seconds}, {"setup_stages", p.session->setup_stages()}}}};
    g_prepared = std::move(p);
    return answer;
  });
}

extern "C" const char* hone_cupti_kernel_prologue(hone_cupti_prologue_fn fn, void* user) {
  return guarded([&] {
    if (!g_recording || !g_recording->prologue)
      throw CuptiFailure("bad_request", "hone_cupti_kernel_prologue",
                         "no recording with a kernel prologue is running: begin one with \"kernel_prologue\": true");
    if (fn)
      g_recording->prologue->arm(fn, user);
    else
      g_recording->prologue->disarm();
    return json{{"ok", true}};
  });
}
