// runner/wire.h: the candidate protocol's JSON conventions as hone-runner speaks them: the error
// kinds of a failed op, numbers JSON cannot carry ("nan", "inf", "-inf"), and field readers whose
// failures are bad_request errors that name the field. Used by the op handlers on the main thread.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace hone::runner {

enum class ErrorKind { BadRequest, LoadError, ForwardError, LaunchError, CudaError, Unsupported, Internal };
std::string_view to_string(ErrorKind kind);

// A failed op; the dispatcher turns it into {"id", "ok": false, "error": {...}}.
struct OpError : std::runtime_error {
  OpError(ErrorKind kind, const std::string& message, std::string cuda_error = {})
      : std::runtime_error(message), kind(kind), cuda_error(std::move(cuda_error)) {}
  ErrorKind kind;
  std::string cuda_error;  // e.g. "cudaErrorIllegalAddress"; empty when none
};

[[noreturn]] void bad_request(const std::string& message);

// A double as the protocol carries it: NaN and ±Inf as strings.
nlohmann::json number(double value);
// A number, or one of the strings "nan", "inf", "-inf".
double read_double(const nlohmann::json& value, const std::string& what);
std::int64_t read_int(const nlohmann::json& value, const std::string& what);
bool read_bool(const nlohmann::json& value, const std::string& what);
// object[name]; bad_request naming `where` when the object lacks it.
const nlohmann::json& require(const nlohmann::json& object, const char* name, const std::string& where);
// object[name] or nullptr when absent or null.
const nlohmann::json* find(const nlohmann::json& object, const char* name);
const nlohmann::json& require_array(const nlohmann::json& object, const char* name, const std::string& where);

// One line on stderr ("hone-runner: ..."), the evidence the judge keeps if the process dies.
void log_line(const std::string& text);

// Serialises a message; invalid UTF-8 (a kernel's error text may hold any bytes) is replaced.
std::string dump(const nlohmann::json& message);

}  // namespace hone::runner
