// runner/args.h: a forward call's arguments as hone_raw_forward takes them: the ArgDescs of the
// judge's ARGs (inputs, params; tensors in arenas, scalars by value) followed by the output
// BUFs, and the scalar values they point at. Built by the call/time/records ops (main thread).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hone.h"
#include "runner/arenas.h"

namespace hone::runner {

union ScalarValue {
  std::int64_t i;
  double f;
  std::uint8_t b;
};

// One ARG: a tensor in an arena, or an int/float/bool value.
struct ArgSpec {
  hone::ArgKind kind = hone::ArgKind::Tensor;
  TensorView tensor;  // kind Tensor
  ScalarValue value{};
};

std::vector<ArgSpec> parse_args(const nlohmann::json& list, const ArenaTable& arenas, const std::string& where);
std::vector<TensorView> parse_buffers(const nlohmann::json& list, const ArenaTable& arenas, const std::string& where);

// The ArgDesc array of one call. prepare() hands forward fresh copies each time, so a candidate
// that writes through its ArgDesc pointer cannot change the next call's arguments.
class ArgPack {
 public:
  ArgPack(const std::vector<ArgSpec>& args, const std::vector<TensorView>& outputs);
  hone::ArgDesc* prepare();
  int count() const { return static_cast<int>(pristine_.size()); }

 private:
  std::vector<hone::ArgDesc> pristine_, working_;
  std::vector<ScalarValue> values_, working_values_;  // one per desc (unused for tensors)
};

}  // namespace hone::runner
