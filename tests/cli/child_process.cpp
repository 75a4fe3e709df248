// SPDX-License-Identifier: LGPL-2.1-or-later
#include "child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace gpusift::testing {

namespace {

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

class SpawnFileActions {
 public:
  SpawnFileActions() { posix_spawn_file_actions_init(&actions_); }
  ~SpawnFileActions() { posix_spawn_file_actions_destroy(&actions_); }
  SpawnFileActions(const SpawnFileActions&) = delete;
  SpawnFileActions& operator=(const SpawnFileActions&) = delete;

  void redirect(int fd, const std::string& path) {
    posix_spawn_file_actions_addopen(&actions_, fd, path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  }
  const posix_spawn_file_actions_t* get() const { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

}  // namespace

ChildResult run_child(const std::vector<std::string>& argv, const std::string& scratch_dir,
                      int timeout_seconds) {
  const std::string out_path = scratch_dir + "/child.stdout";
  const std::string err_path = scratch_dir + "/child.stderr";
  SpawnFileActions actions;
  actions.redirect(STDOUT_FILENO, out_path);
  actions.redirect(STDERR_FILENO, err_path);

  std::vector<char*> args;
  for (const std::string& arg : argv)
    args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  pid_t pid = 0;
  const int spawn_error = posix_spawn(&pid, args[0], actions.get(), nullptr, args.data(), environ);
  if (spawn_error != 0)
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(spawn_error));
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  bool timed_out = false;
  for (;;) {
    const pid_t done = waitpid(pid, &status, timeout_seconds > 0 ? WNOHANG : 0);
    if (done == pid)
      break;
    if (done < 0) {
      if (errno != EINTR)
        throw std::runtime_error("waitpid failed");
      continue;
    }
    if (!timed_out && std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      timed_out = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ChildResult result;
  result.timed_out = timed_out;
  if (WIFEXITED(status))
    result.exit_status = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result.exit_status = 128 + WTERMSIG(status);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  return result;
}

}  // namespace gpusift::testing
