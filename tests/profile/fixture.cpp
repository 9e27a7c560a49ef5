// tests/profile/fixture.cpp: fixture loading and a small shell runner for validator scripts.
#include "fixture.h"

#include <chrono>
#include <filesystem>

#include "support/hash.h"
#include "support/subprocess.h"

namespace hone::profile::testing {

Fixture load_fixture(const std::string& name) {
  Fixture f;
  f.json = nlohmann::json::parse(read_file(std::filesystem::path(HONE_PROFILE_FIXTURES) / (name + ".json")));
  if (f.json.contains("compile")) f.compile = f.json["compile"].get<protocol::CompileReport>();
  f.inputs.worker_result = f.json;
  f.inputs.own_kernels = f.json.value("own_kernels", std::vector<std::string>{});
  f.inputs.compile = f.json.contains("compile") ? &f.compile : nullptr;
  f.inputs.kernel_file = "/work/kernels/" + name + ".cu";
  f.inputs.device = f.json.at("device").get<DeviceFacts>();
  f.inputs.compulsory_bytes = f.json.value("io_bytes", 0.0);
  f.inputs.task_dtype = f.json.value("dtype", std::string("float32"));
  return f;
}

int run_shell(const std::string& command, const std::string& stdin_text, std::string& output) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", command};
  spec.stdin_data = stdin_text;
  spec.timeout = std::chrono::seconds(60);
  ProcessResult r = run_process(spec);
  output = r.out + r.err;
  if (!r.started) output += r.start_error;
  return r.ok() ? 0 : (r.exit_code >= 0 ? r.exit_code : 255);
}

}  // namespace hone::profile::testing
