// A fixture with a scratch folder of its own, removed after each test, in which the program
// under test runs and writes.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "child_process.h"

namespace gpusift::testing {

class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "gpusift-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ChildResult run_program(const std::string& program, std::vector<std::string> args) const {
    args.insert(args.begin(), program);
    return run_child(args, dir_);
  }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
};

}  // namespace gpusift::testing
