// SPDX-License-Identifier: LGPL-2.1-or-later
// Runs a program without a shell and captures its exit status, stdout and stderr.
#pragma once

#include <string>
#include <vector>

namespace gpusift::testing {

struct ChildResult {
  int exit_status = -1;  // 128 + signal number when the child was killed by a signal
  std::string out;
  std::string err;
  bool timed_out = false;  // killed (SIGKILL) after run_child's timeout
};

// argv[0] is the program path. `scratch_dir` receives the files that capture the two streams.
// A child still running after `timeout_seconds` (0: no limit) is killed with SIGKILL.
ChildResult run_child(const std::vector<std::string>& argv, const std::string& scratch_dir,
                      int timeout_seconds = 0);

}  // namespace gpusift::testing
