// cupti/activity_trace.cpp: Activity API buffers and record decoding (CUpti_ActivityKernel10,
// CUpti_ActivityMemcpy6, CUpti_ActivityMemset4 in CUDA 13.0).
#include "activity_trace.h"

#include <cupti_activity.h>
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>

#include "cupti_error.h"

namespace hone::cupti {
namespace {

constexpr std::size_t kBufferBytes = 8u << 20;

std::mutex g_mutex;  // guards g_records: CUPTI completes buffers on its own thread
nlohmann::json g_records;

// Demangled once per kernel name: a held op's records name the same few kernels hundreds of times,
// and they are decoded while the judge waits for the op's reply. Called with g_mutex held.
const std::string& demangle(const char* name) {
  static std::unordered_map<std::string, std::string> known;
  static const std::string none;
  if (!name) return none;
  auto [it, added] = known.try_emplace(name);
  if (added) {
    int status = 0;
    char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    it->second = (status == 0 && out) ? out : name;
    std::free(out);
  }
  return it->second;
}

const char* copy_kind(std::uint8_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "htod";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "dtoh";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "dtod";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "htoh";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "ptop";
    default: return "other";
  }
}

nlohmann::json kernel_json(const CUpti_ActivityKernel10& k) {
  return {{"name", demangle(k.name)},
          {"mangled", k.name ? k.name : ""},
          {"start_ns", k.start},
          {"end_ns", k.end},
          {"duration_ns", k.end - k.start},
          {"device", k.deviceId},
          {"stream", k.streamId},
          {"correlation_id", k.correlationId},
          {"grid", {k.gridX, k.gridY, k.gridZ}},
          {"block", {k.blockX, k.blockY, k.blockZ}},
          {"cluster", {k.clusterX, k.clusterY, k.clusterZ}},
          {"registers_per_thread", k.registersPerThread},
          {"static_shared_bytes", k.staticSharedMemory},
          {"dynamic_shared_bytes", k.dynamicSharedMemory},
          {"local_bytes_per_thread", k.localMemoryPerThread},
          {"graph_id", k.graphId}};
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      g_records["kernels"].push_back(kernel_json(*reinterpret_cast<const CUpti_ActivityKernel10*>(record)));
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto& m = *reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      g_records["memcpys"].push_back({{"kind", copy_kind(m.copyKind)},
                                      {"bytes", m.bytes},
                                      {"start_ns", m.start},
                                      {"end_ns", m.end},
                                      {"duration_ns", m.end - m.start},
                                      {"stream", m.streamId}});
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      const auto& m = *reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      g_records["memsets"].push_back({{"bytes", m.bytes},
                                      {"start_ns", m.start},
                                      {"end_ns", m.end},
                                      {"duration_ns", m.end - m.start},
                                      {"stream", m.streamId}});
    }
  }
  std::size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS)
    g_records["dropped_records"] = g_records.value("dropped_records", std::size_t{0}) + dropped;
  std::free(buffer);
}

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                         CUPTI_ACTIVITY_KIND_MEMSET};

void sort_by_start(nlohmann::json& list) {
  std::sort(list.begin(), list.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a["start_ns"].get<std::uint64_t>() < b["start_ns"].get<std::uint64_t>();
  });
}

}  // namespace

void activity_start() {
  static bool registered = false;
  if (!registered) {
    check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks");
    registered = true;
  }
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_records = {{"kernels", nlohmann::json::array()},
                 {"memcpys", nlohmann::json::array()},
                 {"memsets", nlohmann::json::array()},
                 {"dropped_records", 0}};
  }
  for (CUpti_ActivityKind kind : kKinds) check(cuptiActivityEnable(kind), "cuptiActivityEnable");
}

nlohmann::json activity_stop() {
  check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  for (CUpti_ActivityKind kind : kKinds) check(cuptiActivityDisable(kind), "cuptiActivityDisable");
  check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  std::lock_guard<std::mutex> lock(g_mutex);
  nlohmann::json out = std::move(g_records);
  g_records = nlohmann::json::object();
  for (const char* key : {"kernels", "memcpys", "memsets"}) sort_by_start(out[key]);
  return out;
}

}  // namespace hone::cupti
