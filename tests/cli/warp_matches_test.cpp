// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-warp-matches run as a child process: its counts from our extractor and from CSV files
// agree, positions are really checked, and every kind of bad input gives one stderr line and exit
// status 2. The CPU backend is pinned so that the counts do not depend on the machine.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "cli_paths.h"
#include "scratch_dir_test.h"

#ifndef GPUSIFT_WARP_MATCHES_PATH
#error "GPUSIFT_WARP_MATCHES_PATH must name the gpusift-warp-matches executable"
#endif

namespace gpusift::testing {
namespace {

struct Counts {
  long keypoints = -1, matches = -1, correct = -1;
  double median_error_px = -1;
};

// The numbers of the table row that starts with "| name |".
Counts row_counts(const std::string& out, const std::string& name) {
  const std::regex row("\\| " + name +
                       " \\| [0-9x]* \\| ([0-9]+) \\| ([0-9]+) \\| ([0-9]+) \\| [0-9.]+ % \\| "
                       "([0-9.]+) \\|");
  std::smatch m;
  Counts c;
  if (std::regex_search(out, m, row)) {
    c.keypoints = std::stol(m[1]);
    c.matches = std::stol(m[2]);
    c.correct = std::stol(m[3]);
    c.median_error_px = std::stod(m[4]);
  }
  return c;
}

class WarpMatchesTest : public ScratchDirTest {
 protected:
  ChildResult run(std::vector<std::string> args) const {
    return run_program(GPUSIFT_WARP_MATCHES_PATH, std::move(args));
  }
  ChildResult extract(const std::string& pgm) const {
    return run_program(GPUSIFT_EXTRACT_PATH,
                       {"--backend", "cpu", "--upscale", "0", path(pgm), "-o", path(pgm + ".csv")});
  }
  static std::string image(const std::string& name) { return kDataDir + "/" + name; }
};

TEST_F(WarpMatchesTest, ExtractedAndCsvCountsAgree) {
  const ChildResult direct =
      run({"--backend", "cpu", "--write-pairs", dir_, "--rows", "256", image("astronaut.png")});
  ASSERT_EQ(direct.exit_status, 0) << direct.err;
  const Counts extracted = row_counts(direct.out, "astronaut_256");
  EXPECT_GT(extracted.correct, 50) << direct.out;
  EXPECT_LE(extracted.correct, extracted.matches);

  // gpusift-extract --upscale 0 takes the video mode's sigma, as the tool does by default.
  for (const char* pgm : {"astronaut_256.pgm", "astronaut_256_w.pgm"}) {
    const ChildResult r = extract(pgm);
    ASSERT_EQ(r.exit_status, 0) << r.err;
  }
  const ChildResult from_csv = run({"--features", dir_, "--rows", "256", image("astronaut.png")});
  ASSERT_EQ(from_csv.exit_status, 0) << from_csv.err;
  const Counts read = row_counts(from_csv.out, "astronaut_256");
  EXPECT_EQ(read.keypoints, extracted.keypoints);
  EXPECT_EQ(read.matches, extracted.matches);
  EXPECT_EQ(read.correct, extracted.correct);
  EXPECT_GT(extracted.median_error_px, 0.0);
  EXPECT_LT(extracted.median_error_px, 1.0);
  EXPECT_NEAR(read.median_error_px, extracted.median_error_px, 0.002);
  EXPECT_EQ(row_counts(from_csv.out, "total").correct, extracted.correct);
}

TEST_F(WarpMatchesTest, MatchesAreJudgedByPosition) {
  const ChildResult pairs =
      run({"--backend", "cpu", "--write-pairs", dir_, "--rows", "256", image("coffee.png")});
  ASSERT_EQ(pairs.exit_status, 0) << pairs.err;
  for (const char* pgm : {"coffee_256.pgm", "coffee_256_w.pgm"})
    ASSERT_EQ(extract(pgm).exit_status, 0);
  const Counts right = row_counts(pairs.out, "coffee_256");
  // The same features judged against a transform they were not made with: hardly any land right.
  const ChildResult wrong =
      run({"--features", dir_, "--rows", "256", "--rotation", "-30", image("coffee.png")});
  ASSERT_EQ(wrong.exit_status, 0) << wrong.err;
  const Counts judged_wrong = row_counts(wrong.out, "coffee_256");
  EXPECT_EQ(judged_wrong.matches, right.matches);
  EXPECT_GT(right.correct, 20);
  EXPECT_LT(judged_wrong.correct * 10, right.correct);
}

TEST_F(WarpMatchesTest, IdentityMatchesAlmostEveryKeypointInPlace) {
  const ChildResult r =
      run({"--backend", "cpu", "--rotation", "0", "--scale", "1", image("camera.png")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const Counts c = row_counts(r.out, "camera");
  EXPECT_GT(c.keypoints, 200);
  EXPECT_GE(c.matches * 2, c.keypoints * 9 / 10);  // keypoints counts both images
  EXPECT_GE(c.correct, c.matches * 99 / 100);
  EXPECT_EQ(c.median_error_px, 0.0);
}

struct BadInput {
  std::string name;
  std::vector<std::string> args;  // @DATA@ and @TMP@ are replaced
  std::string message;            // expected in stderr when not empty
};

class WarpMatchesBadInput : public WarpMatchesTest,
                            public ::testing::WithParamInterface<BadInput> {};

TEST_P(WarpMatchesBadInput, OneErrorLineAndStatusTwo) {
  std::filesystem::copy_file(image("camera.png"), path("short.png"));
  std::ofstream(path("short.pgm.csv")) << "x,y\n1,2,3\n";
  std::ofstream(path("short_w.pgm.csv")) << "x,y\n1,2,3\n";
  std::vector<std::string> args;
  for (std::string arg : GetParam().args) {
    for (const auto& [token, value] :
         {std::pair{std::string("@DATA@"), kDataDir}, std::pair{std::string("@TMP@"), dir_}}) {
      const size_t at = arg.find(token);
      if (at != std::string::npos)
        arg.replace(at, token.size(), value);
    }
    args.push_back(arg);
  }
  const ChildResult r = run(args);
  EXPECT_EQ(r.exit_status, kFailureStatus) << r.out;
  EXPECT_EQ(r.err.rfind("gpusift-warp-matches: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, WarpMatchesBadInput,
    ::testing::Values(
        BadInput{"NoImage", {"--backend", "cpu"}, "no IMAGE given"},
        BadInput{"MissingImage", {"--backend", "cpu", "@DATA@/no-such.png"}, "cannot read"},
        BadInput{"ImageIsAFolder", {"--backend", "cpu", "@DATA@"}, "cannot read"},
        BadInput{"UnknownOption", {"--frobnicate", "@DATA@/camera.png"}, "unknown option"},
        BadInput{"MissingValue", {"@DATA@/camera.png", "--rows"}, "missing value for --rows"},
        BadInput{"ZeroScale", {"--scale", "0", "@DATA@/camera.png"}, "bad value '0' for --scale"},
        BadInput{"TooFewRows", {"--rows", "3", "@DATA@/camera.png"}, "bad value '3' for --rows"},
        BadInput{"NanRotation", {"--rotation", "nan", "@DATA@/camera.png"}, "bad value 'nan'"},
        BadInput{"UpscaleTwo", {"--upscale", "2", "@DATA@/camera.png"}, "bad value '2'"},
        BadInput{"SigmaBelowHalf", {"--sigma", "0.3", "@DATA@/camera.png"}, "sigma must be in"},
        BadInput{"ZeroMaxOctaves",
                 {"--max-octaves", "0", "@DATA@/camera.png"},
                 "bad value '0' for --max-octaves"},
        BadInput{"UnknownBackend", {"--backend", "tpu", "@DATA@/camera.png"}, "bad value 'tpu'"},
        BadInput{"MissingCsv", {"--features", "@TMP@", "@DATA@/camera.png"}, "cannot open"},
        BadInput{"ShortCsvRow", {"--features", "@TMP@", "@TMP@/short.png"}, "short.pgm.csv:2"},
        BadInput{"PairsFolderMissing",
                 {"--backend", "cpu", "--write-pairs", "@TMP@/no-such", "@DATA@/camera.png"},
                 "cannot write pairs"}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace gpusift::testing
