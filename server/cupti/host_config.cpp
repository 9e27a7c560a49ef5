// cupti/host_config.cpp: Profiler Host API wrappers (cupti_profiler_host.h, CUDA 12.6+).
#include "host_config.h"

#include <cupti_profiler_host.h>

#include "cupti_error.h"

namespace hone::cupti {

HostObject::HostObject(const std::string& chip, const std::vector<std::uint8_t>& availability) {
  CUpti_Profiler_Host_Initialize_Params p{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip.c_str();
  p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  check(cuptiProfilerHostInitialize(&p), "cuptiProfilerHostInitialize");
  object_ = p.pHostObject;
}

HostObject::~HostObject() {
  CUpti_Profiler_Host_Deinitialize_Params p{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
  p.pHostObject = object_;
  cuptiProfilerHostDeinitialize(&p);
}

bool HostObject::is_valid(const std::string& metric) const {
  CUpti_Profiler_Host_GetMetricProperties_Params p{CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
  p.pHostObject = object_;
  p.pMetricName = metric.c_str();
  return cuptiProfilerHostGetMetricProperties(&p) == CUPTI_SUCCESS;
}

std::vector<std::uint8_t> HostObject::config_image(const std::vector<std::string>& metrics) {
  std::vector<const char*> names;
  for (const std::string& m : metrics) names.push_back(m.c_str());
  CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = object_;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  check(cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");
  CUpti_Profiler_Host_GetConfigImageSize_Params size{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = object_;
  check(cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
  std::vector<std::uint8_t> image(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params get{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  get.pHostObject = object_;
  get.configImageSize = image.size();
  get.pConfigImage = image.data();
  check(cuptiProfilerHostGetConfigImage(&get), "cuptiProfilerHostGetConfigImage");
  return image;
}

std::vector<double> HostObject::evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range,
                                         const std::vector<std::string>& metrics) const {
  std::vector<const char*> names;
  for (const std::string& m : metrics) names.push_back(m.c_str());
  std::vector<double> values(metrics.size(), 0.0);
  CUpti_Profiler_Host_EvaluateToGpuValues_Params p{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
  p.pHostObject = object_;
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values.data();
  check(cuptiProfilerHostEvaluateToGpuValues(&p), "cuptiProfilerHostEvaluateToGpuValues");
  return values;
}

std::size_t count_passes(std::vector<std::uint8_t>& config_image) {
  CUpti_Profiler_Host_GetNumOfPasses_Params p{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  p.configImageSize = config_image.size();
  p.pConfigImage = config_image.data();
  check(cuptiProfilerHostGetNumOfPasses(&p), "cuptiProfilerHostGetNumOfPasses");
  return p.numOfPasses;
}

std::vector<std::string> supported_chips() {
  CUpti_Profiler_Host_GetSupportedChips_Params p{CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE};
  check(cuptiProfilerHostGetSupportedChips(&p), "cuptiProfilerHostGetSupportedChips");
  std::vector<std::string> chips;
  for (std::size_t i = 0; i < p.numChips; ++i) chips.emplace_back(p.ppChipNames[i]);
  return chips;
}

namespace {

// SASS-instrumented metrics always get a replay pass of their own (CUPTI.md section 4).
bool is_sass(const std::string& metric) { return metric.find("__sass_") != std::string::npos; }

struct Trial {
  std::unique_ptr<HostObject> host;
  std::vector<std::uint8_t> image;
  std::size_t passes = 0;
};

Trial try_config(const std::string& chip, const std::vector<std::uint8_t>& availability, const std::vector<std::string>& metrics) {
  Trial t;
  t.host = std::make_unique<HostObject>(chip, availability);
  t.image = t.host->config_image(metrics);
  t.passes = count_passes(t.image);
  return t;
}

}  // namespace

PackedMetrics pack_metrics(const std::string& chip, const std::vector<std::uint8_t>& availability,
                           const std::vector<MetricChoice>& candidates, std::size_t max_passes) {
  PackedMetrics out;
  HostObject validator(chip, availability);
  bool any_sass = false;
  for (const MetricChoice& c : candidates)
    for (const std::string& n : c.names) any_sass = any_sass || is_sass(n);
  // Hardware metrics may use the budget less the pass the SASS metrics will need.
  std::size_t hw_budget = max_passes == 0 ? 0 : (any_sass && max_passes > 1 ? max_passes - 1 : max_passes);
  std::vector<std::string> hardware;  // the accepted non-SASS names
  for (const MetricChoice& choice : candidates) {
    if (choice.names.empty()) continue;
    std::string reason = "not available on " + chip;
    bool accepted = false;
    for (const std::string& name : choice.names) {
      if (!validator.is_valid(name)) continue;
      if (max_passes > 0 && !is_sass(name)) {
        std::vector<std::string> hw = hardware;
        hw.push_back(name);
        std::size_t hw_passes = try_config(chip, availability, hw).passes;
        if (hw_passes > hw_budget) {
          reason = "would need " + std::to_string(hw_passes) + " hardware replay passes (budget " + std::to_string(max_passes) + ")";
          continue;
        }
      }
      std::vector<std::string> all = out.collect;
      all.push_back(name);
      Trial t = try_config(chip, availability, all);
      if (max_passes > 0 && t.passes > max_passes) {
        reason = "would need " + std::to_string(t.passes) + " replay passes (budget " + std::to_string(max_passes) + ")";
        continue;
      }
      out.collect = std::move(all);
      out.report_as.push_back(choice.names[0]);
      out.config_image = std::move(t.image);
      out.passes = t.passes;
      out.host = std::move(t.host);
      if (!is_sass(name)) hardware.push_back(name);
      accepted = true;
      break;
    }
    if (!accepted) out.omitted.emplace_back(choice.names[0], reason);
  }
  if (out.collect.empty()) {
    std::string names;
    for (const auto& [name, why] : out.omitted) names += (names.empty() ? "" : ", ") + name;
    fail("invalid_metric", "cuptiProfilerHostGetMetricProperties", "no requested metric is valid on " + chip + " (" + names + ")");
  }
  return out;
}

}  // namespace hone::cupti
