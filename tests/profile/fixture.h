// tests/profile/fixture.h: loads a worker-result fixture (tests/profile/fixtures/*.json) and
// turns it into the inputs of the profile report, as the engine does with a live result.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "profile/report.h"

namespace hone::profile::testing {

struct Fixture {
  nlohmann::json json;
  protocol::CompileReport compile;
  ProfileInputs inputs;  // points into `compile`: keep the Fixture alive while using it
};

// Throws when the file is missing or malformed.
Fixture load_fixture(const std::string& name);

// Runs a command through /bin/sh with `stdin_text` on its standard input (support/subprocess.h);
// returns the exit code and fills `output` with stdout+stderr.
int run_shell(const std::string& command, const std::string& stdin_text, std::string& output);

}  // namespace hone::profile::testing
