// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-extract's progress line: rewritten in place at most twice a second, the stated frame
// count when there is one, ended by a newline; nothing when not on a terminal.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "video_progress.h"

namespace gpusift::tools {
namespace {

std::string contents(std::FILE* file) {
  std::rewind(file);
  std::string text;
  for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file))
    text += static_cast<char>(c);
  return text;
}

TEST(VideoProgress, RewritesOneLineAndEndsIt) {
  std::FILE* terminal = std::tmpfile();
  ASSERT_NE(terminal, nullptr);
  VideoProgress progress(120, terminal);
  progress.frame_done(1);  // too soon: nothing yet
  EXPECT_EQ(contents(terminal), "");
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  progress.frame_done(7);
  progress.frame_done(8);  // within the interval: not shown
  progress.finish(120);
  const std::string text = contents(terminal);
  EXPECT_EQ(text.rfind("\rgpusift-extract: frame 7 of 120 (", 0), 0u) << text;
  EXPECT_EQ(text.find("frame 8 "), std::string::npos) << text;
  EXPECT_NE(text.find("\rgpusift-extract: frame 120 of 120 ("), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
  std::fclose(terminal);
}

TEST(VideoProgress, WithoutAStatedCountShowsFramesOnly) {
  std::FILE* terminal = std::tmpfile();
  VideoProgress progress(0, terminal);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  progress.frame_done(5);
  progress.finish(9);
  const std::string text = contents(terminal);
  EXPECT_NE(text.find("frame 5 ("), std::string::npos) << text;
  EXPECT_EQ(text.find(" of "), std::string::npos) << text;
  std::fclose(terminal);
}

TEST(VideoProgress, AShortVideoLeavesNoLine) {
  std::FILE* terminal = std::tmpfile();
  VideoProgress progress(3, terminal);
  progress.frame_done(1);
  progress.finish(3);
  EXPECT_EQ(contents(terminal), "");
  std::fclose(terminal);
}

}  // namespace
}  // namespace gpusift::tools
