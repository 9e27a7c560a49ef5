// cupti/host_config.h: the Profiler Host API side (no GPU needed): metric validation per chip,
// config images, replay-pass counts, packing a metric set into a pass budget, and evaluating
// collected counter data into metric values. Used by the range profiler session and by
// hone_cupti_host_query (tests count passes offline with it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "metric_sets.h"

struct CUpti_Profiler_Host_Object;

namespace hone::cupti {

// One CUpti_Profiler_Host_Object. Metrics added to it accumulate, so a config uses a fresh one.
class HostObject {
 public:
  // `availability` is the device's counter-availability image, or empty offline.
  HostObject(const std::string& chip, const std::vector<std::uint8_t>& availability);
  ~HostObject();
  HostObject(const HostObject&) = delete;
  HostObject& operator=(const HostObject&) = delete;

  bool is_valid(const std::string& metric) const;
  // Adds the metrics and returns the config image; throws CuptiFailure when one is invalid.
  std::vector<std::uint8_t> config_image(const std::vector<std::string>& metrics);
  std::vector<double> evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range,
                               const std::vector<std::string>& metrics) const;

 private:
  CUpti_Profiler_Host_Object* object_ = nullptr;
};

// Replay passes a config image needs.
std::size_t count_passes(std::vector<std::uint8_t>& config_image);

// Chips this CUPTI's Profiler Host API knows ("GH100", ...).
std::vector<std::string> supported_chips();

struct PackedMetrics {
  std::vector<std::string> collect;    // names as collected on this chip
  std::vector<std::string> report_as;  // canonical names, same order
  std::vector<std::pair<std::string, std::string>> omitted;  // canonical name, reason
  std::vector<std::uint8_t> config_image;
  std::size_t passes = 0;
  std::unique_ptr<HostObject> host;  // the object that built config_image (evaluates the data)
};

// Picks the first valid name of each candidate and keeps it when the set still fits in
// `max_passes` replay passes (0: no limit). Throws CuptiFailure when nothing is valid.
PackedMetrics pack_metrics(const std::string& chip, const std::vector<std::uint8_t>& availability,
                           const std::vector<MetricChoice>& candidates, std::size_t max_passes);

}  // namespace hone::cupti
