// cupti/range_session.cpp: the Range Profiler call sequence of ../shared/gpu/CUPTI.md section 2.
#include "range_session.h"

#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <chrono>

#include "cupti_error.h"

namespace hone::cupti {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

void initialize_profiler() {
  static bool done = false;
  if (done) return;
  CUpti_Profiler_Initialize_Params p{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  check(cuptiProfilerInitialize(&p), "cuptiProfilerInitialize");
  done = true;
}

const char* level(CUpti_Profiler_Support_Level l) {
  switch (l) {
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
    default: return "unknown";
  }
}

std::vector<std::uint8_t> counter_availability(CUcontext ctx) {
  CUpti_Profiler_GetCounterAvailability_Params p{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  p.ctx = ctx;
  check(cuptiProfilerGetCounterAvailability(&p), "cuptiProfilerGetCounterAvailability");
  std::vector<std::uint8_t> image(p.counterAvailabilityImageSize);
  p.pCounterAvailabilityImage = image.data();
  check(cuptiProfilerGetCounterAvailability(&p), "cuptiProfilerGetCounterAvailability");
  return image;
}

}  // namespace

void require_profiler_support(int device, ProfilerApi api) {
  initialize_profiler();
  CUpti_Profiler_DeviceSupported_Params p{CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
  p.cuDevice = device;
  p.api = api == ProfilerApi::SassMetrics ? CUPTI_PROFILER_SASS_METRICS : CUPTI_PROFILER_RANGE_PROFILING;
  check(cuptiProfilerDeviceSupported(&p), "cuptiProfilerDeviceSupported");
  if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return;
  std::string why = std::string("architecture ") + level(p.architecture) + ", vGPU " + level(p.vGpu) + ", SLI " +
                    level(p.sli) + ", confidential computing " + level(p.confidentialCompute) + ", CMP " +
                    level(p.cmp) + ", WSL " + level(p.wsl);
  fail("not_supported", "cuptiProfilerDeviceSupported",
       std::string("this GPU or configuration does not support ") +
           (api == ProfilerApi::SassMetrics ? "per-instruction SASS metrics" : "hardware counters") + " (" + why + ")");
}

std::string chip_name(int device) {
  initialize_profiler();
  CUpti_Device_GetChipName_Params p{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  p.deviceIndex = static_cast<std::size_t>(device);
  check(cuptiDeviceGetChipName(&p), "cuptiDeviceGetChipName");
  return p.pChipName ? p.pChipName : "";
}

void RangeSession::prepare(CUcontext ctx, int device, const RangeRequest& request) {
  Clock::time_point mark = Clock::now();
  auto stage = [&](const char* name) {  // where the set-up's seconds go (issue 14: ~2 s on the H200)
    const Clock::time_point now = Clock::now();
    stages_[name] = seconds_between(mark, now);
    mark = now;
  };
  initialize_profiler();
  require_profiler_support(device, ProfilerApi::RangeProfiling);
  chip_ = chip_name(device);
  stage("initialize");
  // Counter availability must be read before the range profiler is enabled; it is also the
  // call that fails first without privileges or while another profiler holds the GPU.
  std::vector<std::uint8_t> availability = counter_availability(ctx);
  stage("availability");
  metrics_ = pack_metrics(chip_, availability, request.candidates, request.max_passes);
  stage("config_image");

  CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  enable.ctx = ctx;
  check(cuptiRangeProfilerEnable(&enable), "cuptiRangeProfilerEnable");
  object_ = enable.pRangeProfilerObject;
  stage("enable");

  std::vector<const char*> names;
  for (const std::string& m : metrics_.collect) names.push_back(m.c_str());
  CUpti_RangeProfiler_GetCounterDataSize_Params size{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  size.pRangeProfilerObject = object_;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = request.max_ranges;
  size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(request.max_ranges);
  check(cuptiRangeProfilerGetCounterDataSize(&size), "cuptiRangeProfilerGetCounterDataSize");
  counter_data_.assign(size.counterDataSize, 0);

  CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  init.pRangeProfilerObject = object_;
  init.counterDataSize = counter_data_.size();
  init.pCounterData = counter_data_.data();
  check(cuptiRangeProfilerCounterDataImageInitialize(&init), "cuptiRangeProfilerCounterDataImageInitialize");
  stage("counter_data");

  CUpti_RangeProfiler_SetConfig_Params config{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  config.pRangeProfilerObject = object_;
  config.configSize = metrics_.config_image.size();
  config.pConfig = metrics_.config_image.data();
  config.counterDataImageSize = counter_data_.size();
  config.pCounterDataImage = counter_data_.data();
  config.range = CUPTI_AutoRange;
  config.replayMode = CUPTI_KernelReplay;
  config.maxRangesPerPass = request.max_ranges;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  check(cuptiRangeProfilerSetConfig(&config), "cuptiRangeProfilerSetConfig");
  stage("set_config");
}

RangeSession::RangeSession(CUcontext ctx, int device, const RangeRequest& request) : set_(request.set) {
  try {
    prepare(ctx, device, request);
  } catch (...) {
    disable();  // leave no range profiler enabled behind a failed set-up
    throw;
  }
}

void RangeSession::start() {
  if (started_ || !object_) fail("bad_request", "cuptiRangeProfilerStart", "the range profiler session was started already or ended");
  const Clock::time_point mark = Clock::now();
  CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
  start.pRangeProfilerObject = object_;
  check(cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart");
  started_ = true;
  stages_["start"] = seconds_between(mark, Clock::now());
}

RangeSession::~RangeSession() { disable(); }

void RangeSession::disable() {
  if (!object_) return;
  if (started_) {
    CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = object_;
    cuptiRangeProfilerStop(&stop);
    started_ = false;
  }
  CUpti_RangeProfiler_Disable_Params p{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
  p.pRangeProfilerObject = object_;
  cuptiRangeProfilerDisable(&p);
  object_ = nullptr;
}

nlohmann::json RangeSession::finish() {
  CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = object_;
  started_ = false;
  check(cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
  if (!stop.isAllPassSubmitted)
    fail("cupti_error", "cuptiRangeProfilerStop", "kernel replay did not submit all passes in one round");

  CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = object_;
  check(cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData");

  CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = counter_data_.data();
  info.counterDataImageSize = counter_data_.size();
  check(cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");

  nlohmann::json ranges = nlohmann::json::array();
  for (std::size_t i = 0; i < info.numTotalRanges; ++i) {
    CUpti_RangeProfiler_CounterData_GetRangeInfo_Params range{
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE};
    range.pCounterDataImage = counter_data_.data();
    range.counterDataImageSize = counter_data_.size();
    range.rangeIndex = i;
    range.rangeDelimiter = "/";
    check(cuptiRangeProfilerCounterDataGetRangeInfo(&range), "cuptiRangeProfilerCounterDataGetRangeInfo");
    std::vector<double> values = metrics_.host->evaluate(counter_data_, i, metrics_.collect);
    nlohmann::json v = nlohmann::json::object();
    for (std::size_t m = 0; m < values.size(); ++m) v[metrics_.report_as[m]] = values[m];
    ranges.push_back({{"index", i}, {"name", range.rangeName ? range.rangeName : ""}, {"values", v}});
  }
  nlohmann::json omitted = nlohmann::json::array();
  for (const auto& [name, reason] : metrics_.omitted) omitted.push_back({{"name", name}, {"reason", reason}});
  nlohmann::json collected = nlohmann::json::object();
  for (std::size_t m = 0; m < metrics_.collect.size(); ++m) collected[metrics_.report_as[m]] = metrics_.collect[m];
  disable();
  return {{"chip", chip_},
          {"set", set_},
          {"passes", metrics_.passes},
          {"collected", collected},
          {"omitted", omitted},
          {"ranges_dropped", decode.numOfRangeDropped},
          {"ranges", ranges}};
}


}  // namespace hone::cupti
