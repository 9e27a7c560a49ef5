// cupti/sass_session.cpp: the SASS Metrics API call sequence (see sass_session.h).
#include "sass_session.h"

#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>

#include <limits>

#include "cupti_error.h"
#include "range_session.h"

namespace hone::cupti {
namespace {

constexpr std::uint64_t kNoMetric = std::numeric_limits<std::uint64_t>::max();

std::vector<std::string> chip_sass_metrics(const std::string& chip) {
  CUpti_SassMetrics_GetNumOfMetrics_Params count{CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE};
  count.pChipName = chip.c_str();
  check(cuptiSassMetricsGetNumOfMetrics(&count), "cuptiSassMetricsGetNumOfMetrics");
  std::vector<CUpti_SassMetrics_MetricDetails> details(count.numOfMetrics);
  std::vector<std::string> names;
  if (details.empty()) return names;
  CUpti_SassMetrics_GetMetrics_Params list{CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE};
  list.pChipName = chip.c_str();
  list.numOfMetrics = details.size();
  list.pMetricsList = details.data();
  check(cuptiSassMetricsGetMetrics(&list), "cuptiSassMetricsGetMetrics");
  for (const auto& d : details)
    if (d.pMetricName) names.emplace_back(d.pMetricName);
  return names;
}

std::uint64_t metric_id(const std::string& chip, const std::string& name) {
  CUpti_SassMetrics_GetProperties_Params p{CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
  p.pChipName = chip.c_str();
  p.pMetricName = name.c_str();
  check(cuptiSassMetricsGetProperties(&p), "cuptiSassMetricsGetProperties");
  return p.metric.metricId;
}

}  // namespace

SassSession::SassSession(CUcontext ctx, int device, const SassRequest& request) : ctx_(ctx), device_(device) {
  try {
    start(request);
  } catch (...) {
    stop();  // leave no patching configured behind a failed start
    throw;
  }
}

SassSession::~SassSession() { stop(); }

void SassSession::start(const SassRequest& request) {
  chip_ = chip_name(device_);  // initialises the profiler first
  require_profiler_support(device_, ProfilerApi::SassMetrics);
  available_ = chip_sass_metrics(chip_);
  choice_ = choose_sass_metrics(request.metrics, available_, chip_);
  if (choice_.collect.empty())
    fail("not_supported", "cuptiSassMetricsGetMetrics",
         "this GPU (" + chip_ + ") offers none of hone's per-instruction SASS metrics (" + std::to_string(available_.size()) +
             " SASS metrics in all)");
  max_kernels_ = request.max_kernels;
  max_instructions_ = request.max_instructions;

  std::vector<CUpti_SassMetrics_Config> configs;
  for (const std::string& name : choice_.collect) {
    const std::uint64_t id = metric_id(chip_, name);
    ids_[id] = name;
    configs.push_back({id, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
  }
  CUpti_SassMetricsSetConfig_Params config{CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
  config.numOfMetricConfig = configs.size();
  config.pConfigs = configs.data();
  config.deviceIndex = static_cast<std::uint32_t>(device_);
  check(cuptiSassMetricsSetConfig(&config), "cuptiSassMetricsSetConfig");
  configured_ = true;

  CUpti_SassMetricsEnable_Params enable{CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
  enable.ctx = ctx_;
  enable.enableLazyPatching = 1;
  check(cuptiSassMetricsEnable(&enable), "cuptiSassMetricsEnable");
  enabled_ = true;
}

void SassSession::stop() {
  if (enabled_) {
    CUpti_SassMetricsDisable_Params p{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
    p.ctx = ctx_;
    cuptiSassMetricsDisable(&p);
    enabled_ = false;
  }
  if (configured_) {
    CUpti_SassMetricsUnsetConfig_Params p{CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
    p.deviceIndex = static_cast<std::uint32_t>(device_);
    cuptiSassMetricsUnsetConfig(&p);
    configured_ = false;
  }
}

nlohmann::json SassSession::finish() {
  CUpti_SassMetricsGetDataProperties_Params props{CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
  props.ctx = ctx_;
  check(cuptiSassMetricsGetDataProperties(&props), "cuptiSassMetricsGetDataProperties");

  SassTable table(ids_, max_kernels_, max_instructions_);
  const std::size_t records = props.numOfPatchedInstructionRecords;
  if (records > 0 && props.numOfInstances > 0) {
    // Room for every metric's instances in each record, marked unwritten: whichever way CUPTI
    // lays the values out (a record per instruction and metric, or per instruction), only the
    // values it wrote carry a configured metric id.
    const std::size_t stride = props.numOfInstances * ids_.size();
    std::vector<CUpti_SassMetrics_InstanceValue> values(records * stride, CUpti_SassMetrics_InstanceValue{kNoMetric, 0});
    std::vector<CUpti_SassMetrics_Data> data(records);
    for (std::size_t i = 0; i < records; ++i) {
      data[i].structSize = sizeof(CUpti_SassMetrics_Data);
      data[i].pInstanceValues = &values[i * stride];
    }
    CUpti_SassMetricsFlushData_Params flush{CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
    flush.ctx = ctx_;
    flush.numOfPatchedInstructionRecords = records;
    flush.numOfInstances = props.numOfInstances;
    flush.pMetricsData = data.data();
    check(cuptiSassMetricsFlushData(&flush), "cuptiSassMetricsFlushData");
    // The names stay CUPTI's: NVIDIA's sample frees each one, but a CUPTI that keeps them itself
    // would crash on that free, and the profiling child that records them ends right after.
    for (const auto& d : data)
      if (d.functionName)
        for (std::size_t j = 0; j < stride; ++j)
          table.add({d.functionName, d.cubinCrc, d.functionIndex, d.pcOffset, d.pInstanceValues[j].metricId,
                     d.pInstanceValues[j].value});
  }

  CUpti_SassMetricsDisable_Params disable{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
  disable.ctx = ctx_;
  enabled_ = false;
  check(cuptiSassMetricsDisable(&disable), "cuptiSassMetricsDisable");
  CUpti_SassMetricsUnsetConfig_Params unset{CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE};
  unset.deviceIndex = static_cast<std::uint32_t>(device_);
  configured_ = false;
  check(cuptiSassMetricsUnsetConfig(&unset), "cuptiSassMetricsUnsetConfig");

  nlohmann::json omitted = nlohmann::json::array();
  for (const auto& [name, reason] : choice_.omitted) omitted.push_back({{"name", name}, {"reason", reason}});
  nlohmann::json out = table.to_json();
  out["chip"] = chip_;
  out["granularity"] = "gpu";
  out["lazy_patching"] = true;
  out["metrics"] = choice_.collect;
  out["omitted"] = omitted;
  out["offered"] = available_;
  out["records"] = records;
  out["records_dropped"] = disable.numOfDroppedRecords;
  return out;
}

}  // namespace hone::cupti
