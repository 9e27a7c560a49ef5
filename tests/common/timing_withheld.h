// tests/common/timing_withheld.h: the end-to-end CPU tests that read a time, on a machine other
// processes keep busy. There the judge withholds a time it cannot bound (a correct verdict, no
// timing, flag timing_withheld: hone_worker/bounds.py); CI's shared machine did, 2026-12-06. Such a
// run is made again, kTimedAttempts in all, two seconds apart; a test still withheld after that
// skips, visibly, with the judge's reason (the withheld path has its own tests).
#pragma once

#include <chrono>
#include <iostream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace hone::test {

inline constexpr int kTimedAttempts = 3;

// The judge's reason for withholding the verdict's time, "" when it did not.
inline std::string withheld_reason(const nlohmann::json& verdict) {
  if (!verdict.is_object() || !verdict.contains("flags") || !verdict["flags"].is_array()) return "";
  for (const auto& flag : verdict["flags"])
    if (flag.value("id", "") == "timing_withheld") return flag.value("message", "withheld");
  return "";
}

// run() until reason(result) is "" or kTimedAttempts runs were made; the last result either way.
template <class Run, class Reason>
auto until_timed(Run run, Reason reason) -> decltype(run()) {
  for (int attempt = 1;; ++attempt) {
    auto result = run();
    const std::string why = reason(result);
    if (why.empty()) return result;
    std::cerr << "attempt " << attempt << " of " << kTimedAttempts << ": time withheld: " << why << "\n";
    if (attempt == kTimedAttempts) return result;
    std::this_thread::sleep_for(std::chrono::seconds(2));
  }
}

}  // namespace hone::test
