// tests/optimize/loop_fixture.h: a scratch workspace for end-to-end optimizer tests on the CPU
// (real g++ builds, the real worker under /usr/bin/python3 with real torch): copies of hone's
// example tasks, kernels written by the test, and the store file's raw bytes.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/engine.h"

namespace hone::testing {

class Workspace : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hone-loop-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path copy_task_file(const std::string& name) {
    auto from = std::filesystem::path(HONE_TASKS_DIR) / name;
    std::filesystem::copy_file(from, dir_ / name, std::filesystem::copy_options::overwrite_existing);
    return dir_ / name;
  }
  std::filesystem::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }
  EngineOptions engine_options() const {
    EngineOptions o;
    o.workspace = dir_;
    o.device = DeviceKind::Cpu;
    o.check_timeout = std::chrono::seconds(90);
    return o;
  }
  // Every byte of the store (database, WAL and shared-memory files).
  std::string store_bytes() const {
    std::string all;
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::ifstream in(dir_ / ".hone" / (std::string("hone.db") + suffix), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      all += ss.str();
    }
    return all;
  }

  std::filesystem::path dir_;
};

}  // namespace hone::testing
