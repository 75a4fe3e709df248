// SPDX-License-Identifier: LGPL-2.1-or-later
// A scratch folder in which the program under test runs and writes.
#pragma once

#include <string>
#include <vector>

#include "child_process.h"
#include "scratch_dir_fixture.h"

namespace gpusift::testing {

class ScratchDirTest : public ScratchDirFixture {
 protected:
  ChildResult run_program(const std::string& program, std::vector<std::string> args) const {
    args.insert(args.begin(), program);
    return run_child(args, dir_);
  }
};

}  // namespace gpusift::testing
