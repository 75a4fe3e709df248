// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-demo, the main job's program, run as a child process the way README command 1 runs it:
// a missing element or a failing sink must end it within seconds with a non-zero exit and one
// clear line, never a silent wait.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "child_process.h"

namespace gpusift::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kMissingElementStatus = 2;
constexpr int kPipelineErrorStatus = 1;

// GPUSIFT_TEST_TIME_SCALE stretches the time limits for slow builds: tools/scripts/ci/sanitizers.sh
// sets it, as each child scans every system plugin into its own registry, several times slower
// there.
double time_scale() {
  const char* text = std::getenv("GPUSIFT_TEST_TIME_SCALE");
  const double scale = text ? std::atof(text) : 1.0;
  return scale >= 1.0 ? scale : 1.0;
}

// A child that has not ended by then is killed (exit 124), which fails the test.
const std::string kKillAfterSeconds = std::to_string(static_cast<int>(60 * time_scale()));
const double kFailFastSeconds = 10.0 * time_scale();

class MainJob : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "gpusift-main-job-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    scratch_ = pattern;
  }
  void TearDown() override { fs::remove_all(scratch_); }

  // Runs gpusift-demo with `environment` (NAME=value) added, its own registry, small frames on
  // the CPU backend, and its outputs in the scratch folder unless `arguments` names others.
  ChildResult run_demo(std::vector<std::string> environment,
                       const std::vector<std::string>& arguments) {
    std::vector<std::string> argv = {"/usr/bin/timeout", kKillAfterSeconds, "/usr/bin/env",
                                     "GST_REGISTRY_1_0=" + (scratch_ / "registry.bin").string()};
    argv.insert(argv.end(), environment.begin(), environment.end());
    const std::vector<std::string> demo = {
        GPUSIFT_DEMO_PATH, "--backend", "cpu", "--frames",        "4", "--size",
        "320x240",         "--png",     png(), "--stall-timeout", "20"};
    argv.insert(argv.end(), demo.begin(), demo.end());
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    const auto start = std::chrono::steady_clock::now();
    ChildResult result = run_child(argv, scratch_.string());
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

  std::string mp4() const { return (scratch_ / "demo.mp4").string(); }
  std::string png() const { return (scratch_ / "demo.png").string(); }
  std::string plugin_path() const { return std::string("GST_PLUGIN_PATH=") + GPUSIFT_PLUGIN_DIR; }

  // A system plugin folder with every stock plugin but the one named.
  std::string system_plugins_without(const std::string& plugin_file) {
    const fs::path folder = scratch_ / "system-plugins";
    fs::create_directory(folder);
    for (const fs::directory_entry& entry : fs::directory_iterator(GST_SYSTEM_PLUGIN_DIR)) {
      if (entry.path().filename() != plugin_file)
        fs::create_symlink(entry.path(), folder / entry.path().filename());
    }
    return "GST_PLUGIN_SYSTEM_PATH_1_0=" + folder.string();
  }

  fs::path scratch_;
  double seconds_ = 0;
};

TEST_F(MainJob, RunsToTheEndOnTheCpuBackend) {
  const ChildResult result = run_demo({plugin_path()}, {"--mp4", mp4()});
  ASSERT_EQ(result.exit_status, 0) << result.err;
  EXPECT_NE(result.out.find("4 frames of 320x240"), std::string::npos) << result.out;
  EXPECT_GT(fs::file_size(mp4()), 0u);
  EXPECT_GT(fs::file_size(png()), 0u);
}

TEST_F(MainJob, WithoutTheGpusiftPluginEndsAtOnce) {
  fs::create_directory(scratch_ / "no-plugins");
  const ChildResult result =
      run_demo({"GST_PLUGIN_PATH=" + (scratch_ / "no-plugins").string()}, {"--mp4", mp4()});
  EXPECT_EQ(result.exit_status, kMissingElementStatus) << result.err;
  EXPECT_NE(result.err.find("no element \"gpusiftfilter\""), std::string::npos) << result.err;
  EXPECT_LT(seconds_, kFailFastSeconds);
  EXPECT_FALSE(fs::exists(mp4()));
}

TEST_F(MainJob, WithoutTheH264EncoderEndsAtOnce) {
  const ChildResult result =
      run_demo({plugin_path(), system_plugins_without("libgstx264.so")}, {"--mp4", mp4()});
  EXPECT_EQ(result.exit_status, kMissingElementStatus) << result.err;
  EXPECT_NE(result.err.find("no element \"x264enc\""), std::string::npos) << result.err;
  EXPECT_LT(seconds_, kFailFastSeconds);
}

TEST_F(MainJob, AnOutputThatCannotBeOpenedEndsWithTheSinksError) {
  const std::string unreachable = (scratch_ / "missing-folder" / "demo.mp4").string();
  const ChildResult result = run_demo({plugin_path()}, {"--mp4", unreachable});
  EXPECT_EQ(result.exit_status, kPipelineErrorStatus) << result.err;
  EXPECT_NE(result.err.find(unreachable), std::string::npos) << result.err;
  EXPECT_LT(seconds_, kFailFastSeconds);
}

TEST_F(MainJob, AMissingImageEndsAtOnce) {
  const std::string missing = (scratch_ / "no-such-image.png").string();
  const ChildResult result = run_demo({plugin_path()}, {"--image", missing, "--mp4", mp4()});
  EXPECT_NE(result.exit_status, 0);
  EXPECT_NE(result.err.find(missing), std::string::npos) << result.err;
  EXPECT_LT(seconds_, kFailFastSeconds);
}

TEST_F(MainJob, AnUndecodableImageEndsAtOnce) {
  const std::string text_file = (scratch_ / "not-an-image.png").string();
  std::FILE* file = std::fopen(text_file.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fputs("this is not an image\n", file);
  std::fclose(file);
  const ChildResult result = run_demo({plugin_path()}, {"--image", text_file, "--mp4", mp4()});
  EXPECT_NE(result.exit_status, 0);
  EXPECT_NE(result.err.find("cannot decode image " + text_file), std::string::npos) << result.err;
  EXPECT_LT(seconds_, kFailFastSeconds);
}

}  // namespace
}  // namespace gpusift::testing
