// cupti/cupti_error.h: a failed CUPTI or driver call as an exception that carries a stable code
// for the worker and the user ("insufficient_privileges", "hardware_busy", ...), the call that
// failed and CUPTI's own message. Used inside libhone_cupti only.
#pragma once

#include <cupti_result.h>

#include <stdexcept>
#include <string>

namespace hone::cupti {

class CuptiFailure : public std::runtime_error {
 public:
  CuptiFailure(std::string code, std::string call, const std::string& message)
      : std::runtime_error(message), code_(std::move(code)), call_(std::move(call)) {}
  const std::string& code() const { return code_; }
  const std::string& call() const { return call_; }

 private:
  std::string code_;
  std::string call_;
};

// The stable code for a CUPTI result: "insufficient_privileges", "hardware_busy",
// "not_supported", "multiple_subscribers", "invalid_metric", "no_device", "cupti_error".
std::string code_for(CUptiResult result);

// Throws CuptiFailure when result is not CUPTI_SUCCESS; `call` names the API function.
void check(CUptiResult result, const char* call);

// Throws a CuptiFailure with the given code for failures that are not CUPTI results.
[[noreturn]] void fail(const std::string& code, const std::string& call, const std::string& message);

}  // namespace hone::cupti
