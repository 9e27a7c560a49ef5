// protocol/device.h: the device a kernel runs on, as one typed value: what a request asks for
// (DeviceKind: auto, the CPU or a GPU; parsed once, by parse_device_kind, where a person or a
// file names it) and the device the engine resolved it to (Device: the CPU, or one GPU by
// index), whose worker-protocol spelling ("cpu", "cuda:0") is written in one place, name().
// Plain values, any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hone::protocol {

// What a request asks for. Auto: the kernel's language and what the worker sees decide.
enum class DeviceKind { Auto, Cpu, Cuda };

// "auto" | "cpu" | "cuda" (or "gpu") -> DeviceKind; nullopt for anything else.
std::optional<DeviceKind> parse_device_kind(std::string_view text);
std::string_view to_string(DeviceKind kind);  // "auto" | "cpu" | "cuda"

// A resolved device: the CPU, or the GPU of that index.
class Device {
 public:
  static Device cpu() { return Device(DeviceKind::Cpu, 0); }
  static Device cuda(int index) { return Device(DeviceKind::Cuda, index); }

  bool is_cuda() const { return kind_ == DeviceKind::Cuda; }
  DeviceKind kind() const { return kind_; }  // Cpu or Cuda
  int index() const { return index_; }       // the GPU's index; 0 for the CPU
  // "cpu" | "cuda:N": how the worker protocol names it.
  std::string name() const;
  // "cpu" | "cuda": how a verdict's device.kind and a stored run name it.
  std::string_view kind_name() const { return to_string(kind_); }

  friend bool operator==(const Device&, const Device&) = default;

 private:
  Device(DeviceKind kind, int index) : kind_(kind), index_(index) {}
  DeviceKind kind_;
  int index_;
};

}  // namespace hone::protocol
