// runner/args.cpp: ARG/BUF lists parsed against the arenas, and the ArgDesc arrays made of them.
#include "runner/args.h"

#include <cmath>

#include "runner/wire.h"

namespace hone::runner {
namespace {

hone::ArgDesc tensor_desc(const TensorView& t) {
  hone::ArgDesc d{};
  d.data = t.data;
  d.kind = static_cast<std::int32_t>(hone::ArgKind::Tensor);
  d.dtype = static_cast<std::int32_t>(t.dtype);
  d.ndim = t.ndim;
  for (int i = 0; i < t.ndim; ++i) {
    d.sizes[i] = t.sizes[i];
    d.strides[i] = t.strides[i];
  }
  return d;
}

ArgSpec parse_arg(const nlohmann::json& arg, const ArenaTable& arenas, const std::string& where) {
  ArgSpec spec;
  const nlohmann::json& kind = require(arg, "kind", where);
  const std::string name = kind.is_string() ? kind.get<std::string>() : "";
  if (name == "tensor") {
    spec.tensor = arenas.resolve(require(arg, "buf", where), where + ".buf");
  } else if (name == "int") {
    spec.kind = hone::ArgKind::Int;
    spec.value.i = read_int(require(arg, "value", where), where + ".value");
  } else if (name == "float") {
    spec.kind = hone::ArgKind::Float;
    spec.value.f = read_double(require(arg, "value", where), where + ".value");
  } else if (name == "bool") {
    spec.kind = hone::ArgKind::Bool;
    spec.value.b = read_bool(require(arg, "value", where), where + ".value") ? 1 : 0;
  } else {
    bad_request(where + ": \"kind\" must be \"tensor\", \"int\", \"float\" or \"bool\"");
  }
  return spec;
}

}  // namespace

std::vector<ArgSpec> parse_args(const nlohmann::json& list, const ArenaTable& arenas, const std::string& where) {
  if (!list.is_array()) bad_request(where + " must be an array of ARGs");
  std::vector<ArgSpec> out;
  for (std::size_t i = 0; i < list.size(); ++i) out.push_back(parse_arg(list[i], arenas, where + "[" + std::to_string(i) + "]"));
  return out;
}

std::vector<TensorView> parse_buffers(const nlohmann::json& list, const ArenaTable& arenas, const std::string& where) {
  if (!list.is_array()) bad_request(where + " must be an array of BUFs");
  std::vector<TensorView> out;
  for (std::size_t i = 0; i < list.size(); ++i) out.push_back(arenas.resolve(list[i], where + "[" + std::to_string(i) + "]"));
  return out;
}

ArgPack::ArgPack(const std::vector<ArgSpec>& args, const std::vector<TensorView>& outputs) {
  for (const ArgSpec& a : args) {
    if (a.kind == hone::ArgKind::Tensor) {
      pristine_.push_back(tensor_desc(a.tensor));
    } else {
      hone::ArgDesc d{};
      d.kind = static_cast<std::int32_t>(a.kind);
      d.dtype = -1;
      pristine_.push_back(d);
    }
    values_.push_back(a.value);
  }
  for (const TensorView& t : outputs) {
    pristine_.push_back(tensor_desc(t));
    values_.push_back(ScalarValue{});
  }
  working_.resize(pristine_.size());
  working_values_.resize(values_.size());
}

hone::ArgDesc* ArgPack::prepare() {
  for (std::size_t i = 0; i < pristine_.size(); ++i) {
    working_[i] = pristine_[i];
    working_values_[i] = values_[i];
    if (pristine_[i].kind != static_cast<std::int32_t>(hone::ArgKind::Tensor)) working_[i].data = &working_values_[i];
  }
  return working_.empty() ? nullptr : working_.data();
}

}  // namespace hone::runner
