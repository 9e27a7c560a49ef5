// protocol/device.cpp: the one parser of device names and the worker protocol's spelling.
#include "protocol/device.h"

namespace hone::protocol {

std::optional<DeviceKind> parse_device_kind(std::string_view text) {
  if (text == "auto") return DeviceKind::Auto;
  if (text == "cpu") return DeviceKind::Cpu;
  if (text == "cuda" || text == "gpu") return DeviceKind::Cuda;
  return std::nullopt;
}

std::string_view to_string(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::Auto: return "auto";
    case DeviceKind::Cpu: return "cpu";
    case DeviceKind::Cuda: return "cuda";
  }
  return "auto";
}

std::string Device::name() const { return is_cuda() ? "cuda:" + std::to_string(index_) : "cpu"; }

}  // namespace hone::protocol
