// runner/wire.cpp: error kinds, NaN-safe numbers and field readers of the candidate protocol.
#include "runner/wire.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace hone::runner {
namespace {

// A value as an error message quotes it: at most 80 characters.
std::string brief(const nlohmann::json& value) {
  std::string text = dump(value);
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

}  // namespace

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::BadRequest: return "bad_request";
    case ErrorKind::LoadError: return "load_error";
    case ErrorKind::ForwardError: return "forward_error";
    case ErrorKind::LaunchError: return "launch_error";
    case ErrorKind::CudaError: return "cuda_error";
    case ErrorKind::Unsupported: return "unsupported";
    case ErrorKind::Internal: return "internal";
  }
  return "internal";
}

void bad_request(const std::string& message) { throw OpError(ErrorKind::BadRequest, message); }

nlohmann::json number(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

double read_double(const nlohmann::json& value, const std::string& what) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  bad_request(what + ": expected a number (or \"nan\", \"inf\", \"-inf\"), got " + brief(value));
}

std::int64_t read_int(const nlohmann::json& value, const std::string& what) {
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      bad_request(what + ": " + brief(value) + " is out of range");
    return value.get<std::int64_t>();
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::trunc(d) == d && std::fabs(d) < 9.007199254740992e15) return static_cast<std::int64_t>(d);
  }
  bad_request(what + ": expected an integer, got " + brief(value));
}

bool read_bool(const nlohmann::json& value, const std::string& what) {
  if (!value.is_boolean()) bad_request(what + ": expected true or false, got " + brief(value));
  return value.get<bool>();
}

const nlohmann::json& require(const nlohmann::json& object, const char* name, const std::string& where) {
  if (!object.is_object()) bad_request(where + ": expected an object, got " + brief(object));
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) bad_request(where + ": \"" + name + "\" is missing");
  return *it;
}

const nlohmann::json* find(const nlohmann::json& object, const char* name) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(name);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

const nlohmann::json& require_array(const nlohmann::json& object, const char* name, const std::string& where) {
  const nlohmann::json& v = require(object, name, where);
  if (!v.is_array()) bad_request(where + ": \"" + name + "\" must be an array, got " + brief(v));
  return v;
}

void log_line(const std::string& text) { std::fprintf(stderr, "hone-runner: %s\n", text.c_str()); }

std::string dump(const nlohmann::json& message) {
  return message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace hone::runner
