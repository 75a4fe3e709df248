// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-extract run as a child process: its CSV against the CPU backend in-process, and one
// stderr line with exit status 2 for every kind of bad input. The output checks pin the CPU
// backend so that a CUDA fault shows up in the gpu suite, not here.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <opencv2/imgcodecs.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_paths.h"
#include "gpusift/cpu_sift.h"
#include "gpusift/cpu_surf.h"
#include "gpusift/extractor.h"
#include "scratch_dir_test.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator))
    parts.push_back(part);
  return parts;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream file(path);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(file, line))
    lines.push_back(line);
  return lines;
}

std::string expected_header(int descriptor_columns, bool with_class_id = false) {
  std::string header = "x,y,size,angle,response,octave";
  if (with_class_id)
    header += ",class_id";
  for (int d = 0; d < descriptor_columns; ++d)
    header += ",d" + std::to_string(d);
  return header;
}

float to_float(const std::string& text) {
  return std::strtof(text.c_str(), nullptr);
}

// Data rows (lines[1..]) against the features, value for value: %.9g round-trips floats, so the
// CSV must give back the very same values. SURF rows carry class_id after octave.
void expect_rows_equal(const std::vector<std::string>& lines, const Features& expected,
                       bool with_class_id) {
  ASSERT_EQ(lines.size(), expected.keypoints.size() + 1);
  const size_t leading = with_class_id ? 7 : 6;
  const int columns = expected.descriptor_size;
  for (size_t i = 0; i < expected.keypoints.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    const std::vector<std::string> fields = split(lines[i + 1], ',');
    ASSERT_EQ(fields.size(), leading + columns);
    const Keypoint& k = expected.keypoints[i];
    EXPECT_EQ(to_float(fields[0]), k.x);
    EXPECT_EQ(to_float(fields[1]), k.y);
    EXPECT_EQ(to_float(fields[2]), k.size);
    EXPECT_EQ(to_float(fields[3]), k.angle);
    EXPECT_EQ(to_float(fields[4]), k.response);
    EXPECT_EQ(std::stoi(fields[5]), k.octave);
    if (with_class_id) {
      EXPECT_EQ(std::stoi(fields[6]), k.class_id);
    }
    for (int d = 0; d < columns; ++d)
      ASSERT_EQ(to_float(fields[leading + d]), expected.float_descriptors[i * columns + d])
          << "d" << d;
  }
}

bool is_one_error_line(const std::string& err) {
  return err.rfind("gpusift-extract: ", 0) == 0 && err.find('\n') == err.size() - 1;
}

class CliTest : public ScratchDirTest {
 protected:
  ChildResult run(std::vector<std::string> args) const {
    return run_program(GPUSIFT_EXTRACT_PATH, std::move(args));
  }
  static std::string image(const std::string& name) { return kDataDir + "/" + name; }
};

TEST_F(CliTest, CsvEqualsCpuBackendInProcess) {
  const ChildResult r = run({"--backend", "cpu", image("camera.png"), "-o", path("camera.csv")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.err, "");

  const cv::Mat gray = load_gray("camera.png");
  ASSERT_FALSE(gray.empty());
  CpuSiftExtractor extractor{SiftParams{}};
  const Features expected = extractor.extract(gray.data, gray.step, gray.cols, gray.rows);
  ASSERT_GT(expected.keypoints.size(), 100u);
  const std::string summary = "camera.png: " + std::to_string(expected.keypoints.size()) +
                              " keypoints (cpu, 512x512) -> " + path("camera.csv") + "\n";
  EXPECT_NE(r.out.find(summary), std::string::npos) << r.out;

  const std::vector<std::string> lines = read_lines(path("camera.csv"));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], expected_header(kSiftDescriptorSize));
  expect_rows_equal(lines, expected, false);
}

TEST_F(CliTest, DistributionGridSpreadsNfeaturesAsTheLibrary) {
  const ChildResult r = run({"--backend", "cpu", "--nfeatures", "200", "--distribution", "grid",
                             image("camera.png"), "-o", path("grid.csv")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const cv::Mat gray = load_gray("camera.png");
  SiftParams params;
  params.nfeatures = 200;
  params.distribution = KeypointDistribution::kGrid;
  CpuSiftExtractor extractor(params);
  const Features expected = extractor.extract(gray.data, gray.step, gray.cols, gray.rows);
  ASSERT_EQ(expected.keypoints.size(), 200u);
  expect_rows_equal(read_lines(path("grid.csv")), expected, false);
}

// -o - writes the same CSV to stdout, the summary going to stderr; nothing named "-" appears.
TEST_F(CliTest, DashWritesTheCsvToStdout) {
  const ChildResult file = run({"--backend", "cpu", image("camera.png"), "-o", path("c.csv")});
  ASSERT_EQ(file.exit_status, 0) << file.err;
  const ChildResult r = run({"--backend", "cpu", image("camera.png"), "-o", "-"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::string csv;
  for (const std::string& line : read_lines(path("c.csv")))
    csv += line + "\n";
  EXPECT_EQ(r.out, csv);
  EXPECT_NE(r.err.find("camera.png: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" -> -\n"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists("-"));
}

TEST_F(CliTest, VersionAndHelpAreWhole) {
  const ChildResult version = run({"--version"});
  EXPECT_EQ(version.exit_status, 0);
  EXPECT_EQ(version.out, std::string("gpusift-extract ") + GPUSIFT_VERSION + "\n");
  const ChildResult help = run({"--help"});
  EXPECT_EQ(help.exit_status, 0);
  for (const char* part : {"--version", "-: the CSV on stdout", "gpusift-features"})
    EXPECT_NE(help.out.find(part), std::string::npos) << part;
}

// --upscale 0 takes the video mode's five octaves, as gpusiftfilter does; --max-octaves sets
// another count. camera.png, 512x512, has six octaves without upscaling.
TEST_F(CliTest, MaxOctavesFollowsUpscaleUntilGiven) {
  const cv::Mat gray = load_gray("camera.png");
  ASSERT_FALSE(gray.empty());
  const auto library = [&](int max_octaves) {
    SiftParams params = video_sift_params();
    params.max_octaves = max_octaves;
    return CpuSiftExtractor{params}.extract(gray.data, gray.step, gray.cols, gray.rows);
  };
  const Features five = library(kVideoMaxOctaves), all = library(0);
  ASSERT_NE(five.keypoints.size(), all.keypoints.size());
  const struct {
    std::vector<std::string> options;
    const Features& expected;
  } cases[] = {{{"--upscale", "0"}, five}, {{"--upscale", "0", "--max-octaves", "99"}, all}};
  for (const auto& c : cases) {
    std::vector<std::string> args = c.options;
    args.insert(args.end(), {"--backend", "cpu", image("camera.png"), "-o", path("camera.csv")});
    const ChildResult r = run(args);
    ASSERT_EQ(r.exit_status, 0) << r.err;
    expect_rows_equal(read_lines(path("camera.csv")), c.expected, false);
  }
}

TEST_F(CliTest, SurfCsvEqualsCpuSurfBackendInProcess) {
  const ChildResult r = run({"--method", "surf", "--backend", "cpu", "--hessian-threshold", "400",
                             image("camera.png"), "-o", path("surf.csv")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.err, "");

  const cv::Mat gray = load_gray("camera.png");
  ASSERT_FALSE(gray.empty());
  SurfParams params;
  params.hessian_threshold = 400;
  CpuSurfExtractor extractor{params};
  const Features expected = extractor.extract(gray.data, gray.step, gray.cols, gray.rows);
  ASSERT_GT(expected.keypoints.size(), 100u);
  ASSERT_EQ(expected.descriptor_size, kSurfDescriptorSize);
  const std::string summary = "camera.png: " + std::to_string(expected.keypoints.size()) +
                              " keypoints (cpu, 512x512) -> " + path("surf.csv") + "\n";
  EXPECT_NE(r.out.find(summary), std::string::npos) << r.out;

  const std::vector<std::string> lines = read_lines(path("surf.csv"));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], expected_header(kSurfDescriptorSize, true));
  expect_rows_equal(lines, expected, true);
}

TEST_F(CliTest, SurfExtendedUprightGives128ColumnsAndAngle270) {
  const ChildResult r = run({image("camera.png"), "--method=surf", "--extended", "1", "--upright",
                             "1", "--backend", "cpu", "-o", path("ext.csv")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const std::vector<std::string> lines = read_lines(path("ext.csv"));
  ASSERT_GT(lines.size(), 100u);
  EXPECT_EQ(lines[0], expected_header(kSurfExtendedDescriptorSize, true));
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> fields = split(lines[i], ',');
    ASSERT_EQ(fields.size(), 7u + kSurfExtendedDescriptorSize) << "row " << i;
    ASSERT_EQ(to_float(fields[3]), 270.f) << "row " << i;
    ASSERT_TRUE(fields[6] == "1" || fields[6] == "-1") << "row " << i << ": " << fields[6];
  }
}

TEST_F(CliTest, SurfWithoutDescriptorGivesSevenColumns) {
  const ChildResult r = run({image("camera.png"), "--method", "surf", "--descriptor", "none",
                             "--backend", "cpu", "-o", path("kp.csv")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const std::vector<std::string> lines = read_lines(path("kp.csv"));
  ASSERT_GT(lines.size(), 100u);
  EXPECT_EQ(lines[0], expected_header(0, true));
  for (size_t i = 1; i < lines.size(); ++i)
    ASSERT_EQ(split(lines[i], ',').size(), 7u) << i;
}

TEST_F(CliTest, Uint8DescriptorsAreIntegers) {
  const ChildResult r =
      run({image("camera.png"), "--descriptor", "uint8", "--backend", "cpu", "-o", path("u8.csv")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const std::vector<std::string> lines = read_lines(path("u8.csv"));
  ASSERT_GT(lines.size(), 100u);
  EXPECT_EQ(lines[0], expected_header(kSiftDescriptorSize));
  const std::regex byte_value("[0-9]{1,3}");
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> fields = split(lines[i], ',');
    ASSERT_EQ(fields.size(), 6u + kSiftDescriptorSize) << "row " << i;
    for (size_t f = 6; f < fields.size(); ++f) {
      ASSERT_TRUE(std::regex_match(fields[f], byte_value)) << "row " << i << ": " << fields[f];
      ASSERT_LE(std::stoi(fields[f]), 255);
    }
  }
}

TEST_F(CliTest, NoDescriptorGivesSixColumns) {
  const ChildResult r =
      run({image("camera.png"), "--backend", "cpu", "--descriptor", "none", "-o", path("kp.csv")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const std::vector<std::string> lines = read_lines(path("kp.csv"));
  ASSERT_GT(lines.size(), 100u);
  EXPECT_EQ(lines[0], expected_header(0));
  for (size_t i = 1; i < lines.size(); ++i)
    ASSERT_EQ(split(lines[i], ',').size(), 6u) << i;
}

TEST_F(CliTest, OverflowKeepsTheCapacityAndWarns) {
  const ChildResult r = run({image("camera.png"), "--backend", "cpu", "--max-keypoints", "10",
                             "--descriptor", "none", "-o", path("few.csv")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(read_lines(path("few.csv")).size(), 11u);
  EXPECT_TRUE(is_one_error_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kept the strongest 10"), std::string::npos) << r.err;
}

TEST_F(CliTest, DrawWritesTheImage) {
  const ChildResult r = run({image("camera.png"), "--backend", "cpu", "--descriptor", "none",
                             "--draw", path("drawn.png"), "-o", path("kp.csv")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const cv::Mat drawn = cv::imread(path("drawn.png"), cv::IMREAD_UNCHANGED);
  EXPECT_EQ(drawn.cols, 512);
  EXPECT_EQ(drawn.rows, 512);
  EXPECT_EQ(drawn.channels(), 3);
}

TEST_F(CliTest, MislabelledImagesAreReadByTheirContent) {
  std::filesystem::copy_file(image("camera.png"), path("png-named.jpg"));
  std::filesystem::copy_file(image("camera.pnm"), path("pnm-named.png"));
  ASSERT_EQ(run({"--backend", "cpu", image("camera.png"), "-o", path("right.csv")}).exit_status, 0);
  for (const char* name : {"png-named.jpg", "pnm-named.png"}) {
    const ChildResult r = run({"--backend", "cpu", path(name), "-o", path("mislabelled.csv")});
    ASSERT_EQ(r.exit_status, 0) << name << ": " << r.err;
    EXPECT_EQ(read_lines(path("mislabelled.csv")), read_lines(path("right.csv"))) << name;
  }
}

TEST_F(CliTest, ListBackendsListsCpu) {
  const ChildResult r = run({"--list-backends"});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::vector<std::string> lines = split(r.out, '\n');
  EXPECT_NE(std::find(lines.begin(), lines.end(), "cpu"), lines.end()) << r.out;
}

TEST_F(CliTest, HelpPrintsUsage) {
  const ChildResult r = run({"--help"});
  EXPECT_EQ(r.exit_status, 0);
  EXPECT_EQ(r.out.rfind("usage: gpusift-extract", 0), 0u) << r.out;
}

TEST_F(CliTest, BenchPrintsTheMedian) {
  const ChildResult r =
      run({image("camera.png"), "--bench", "3", "--descriptor", "none", "-o", path("b.csv")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("median_ms=[0-9.]+ runs=3 backend=(cpu|cuda)")))
      << r.out;
}

TEST_F(CliTest, CudaBackendNeedsADevice) {
  const ChildResult r = run({image("camera.png"), "--backend", "cuda", "-o", path("cuda.csv")});
  if (cuda_device_count() > 0) {
    ASSERT_EQ(r.exit_status, 0) << r.err;
    EXPECT_NE(r.out.find("(cuda, 512x512)"), std::string::npos) << r.out;
  } else {
    EXPECT_EQ(r.exit_status, kFailureStatus);
    EXPECT_TRUE(is_one_error_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("CUDA"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(path("cuda.csv")));
  }
}

// A FIFO as input: opening it would wait for a writer that never comes. The CLI refuses it at
// once with one line naming it; the child is killed after 20 s if it hangs instead.
TEST_F(CliTest, FifoInputIsRefusedAtOnce) {
  const std::string fifo = path("input.png");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  for (const std::string& output : {path("out.csv"), path("out.gpsf")}) {
    const ChildResult r = run_child({GPUSIFT_EXTRACT_PATH, fifo, "-o", output}, dir_, 20);
    ASSERT_FALSE(r.timed_out) << "gpusift-extract hung on the FIFO " << fifo;
    EXPECT_EQ(r.exit_status, kFailureStatus) << r.out << r.err;
    EXPECT_TRUE(is_one_error_line(r.err)) << "stderr: [" << r.err << "]";
    EXPECT_NE(r.err.find("cannot read " + fifo + ": it is a FIFO (named pipe), not a regular file"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(output));
  }
}

struct BadInput {
  const char* name;
  std::vector<std::string> args;  // @TMP@ and @DATA@ stand for the scratch and data folders
  const char* message = "";       // a part of the stderr line, where the wording matters
};

class CliBadInput : public CliTest, public ::testing::WithParamInterface<BadInput> {
 protected:
  std::vector<std::string> expanded_args() const {
    std::vector<std::string> args = GetParam().args;
    for (std::string& arg : args) {
      for (const auto& [token, value] :
           {std::pair<std::string, std::string>{"@TMP@", dir_}, {"@DATA@", kDataDir}}) {
        const size_t at = arg.find(token);
        if (at != std::string::npos)
          arg.replace(at, token.size(), value);
      }
    }
    return args;
  }
};

// The hostile input files, in the scratch folder.
void write_hostile_files(const std::string& dir) {
  std::ofstream(dir + "/not-an-image.png") << "this is text, not a PNG\n";
  std::ofstream(dir + "/text.pnm") << "this is text, not a PNM\n";
  std::ofstream(dir + "/empty.png").close();
  const auto copy_head = [&](const std::string& from, const std::string& to, size_t bytes) {
    std::ifstream in(kDataDir + "/" + from, std::ios::binary);
    std::string head(bytes, '\0');
    in.read(head.data(), static_cast<std::streamsize>(bytes));
    std::ofstream(dir + "/" + to, std::ios::binary).write(head.data(), in.gcount());
  };
  copy_head("camera.png", "truncated.png", 2000);
  copy_head("camera.pnm", "truncated.pnm", 512 * 256);  // half of the pixels
  // A header claiming 20000x20000 (400 MB of pixels) followed by 4 kB.
  std::ofstream(dir + "/huge.pnm", std::ios::binary) << "P5\n20000 20000\n255\n"
                                                     << std::string(4096, '\x80');
  std::ofstream(dir + "/wide.pnm", std::ios::binary) << "P5\n16385 1\n255\n"
                                                     << std::string(16385, '\x80');
  for (const char* name : {"full.gpsf", "full.png", "full.csv"})
    std::filesystem::create_symlink("/dev/full", dir + "/" + name);
  std::filesystem::create_symlink("/proc/version", dir + "/kernel.csv");
}

TEST_P(CliBadInput, ExitsWithOneStderrLine) {
  write_hostile_files(dir_);
  const ChildResult r = run(expanded_args());
  EXPECT_EQ(r.exit_status, kFailureStatus) << r.out << r.err;
  EXPECT_TRUE(is_one_error_line(r.err)) << "stderr: [" << r.err << "]";
  EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
}

const std::vector<BadInput>& bad_inputs() {
  static const std::vector<BadInput> inputs = {
      {"MissingImageFile", {"@DATA@/no-such-image.png", "-o", "@TMP@/out.csv"}},
      {"UndecodableImage", {"@TMP@/not-an-image.png", "-o", "@TMP@/out.csv"}},
      {"ImageIsAFolder",
       {"@DATA@", "-o", "@TMP@/out.csv"},
       "it is a directory, not a regular file"},
      {"InputIsACharacterDevice",
       {"/dev/null", "-o", "@TMP@/out.csv"},
       "cannot read /dev/null: it is a character device, not a regular file"},
      {"NoImageArgument", {"-o", "@TMP@/out.csv"}},
      {"TwoImages", {"@DATA@/camera.png", "@DATA@/coins.png", "-o", "@TMP@/out.csv"}},
      {"UnknownOption", {"--frobnicate", "@DATA@/camera.png", "-o", "@TMP@/out.csv"}},
      {"MissingValueAtEnd", {"@DATA@/camera.png", "-o", "@TMP@/out.csv", "--nfeatures"}},
      {"MissingValueBeforeOption", {"@DATA@/camera.png", "--draw", "-o", "@TMP@/out.csv"}},
      {"MissingOutput", {"@DATA@/camera.png"}},
      {"NegativeNfeatures", {"@DATA@/camera.png", "--nfeatures", "-3", "-o", "@TMP@/out.csv"}},
      {"NonNumericNfeatures", {"@DATA@/camera.png", "--nfeatures", "12x", "-o", "@TMP@/o.csv"}},
      {"UpscaleSeven", {"@DATA@/camera.png", "--upscale", "7", "-o", "@TMP@/out.csv"}},
      {"UnknownDescriptor", {"@DATA@/camera.png", "--descriptor", "foo", "-o", "@TMP@/out.csv"}},
      {"UnknownMethod", {"@DATA@/camera.png", "--method", "orb", "-o", "@TMP@/out.csv"}},
      {"UnknownDistribution",
       {"@DATA@/camera.png", "--distribution", "quadtree", "-o", "@TMP@/out.csv"}},
      {"SurfUint8Descriptor",
       {"@DATA@/camera.png", "--method", "surf", "--descriptor", "uint8", "-o", "@TMP@/o.csv"},
       "descriptor uint8 does not apply to SURF"},
      {"SurfRootsiftDescriptor",
       {"@DATA@/camera.png", "--descriptor", "rootsift", "--method", "surf", "-o", "@TMP@/o.csv"},
       "descriptor rootsift does not apply to SURF"},
      {"SurfWithSigma",
       {"@DATA@/camera.png", "--method", "surf", "--sigma", "2", "-o", "@TMP@/out.csv"},
       "--sigma is only for --method sift"},
      {"SurfWithMaxOctaves",
       {"@DATA@/camera.png", "--method", "surf", "--max-octaves", "3", "-o", "@TMP@/out.csv"},
       "--max-octaves is only for --method sift"},
      {"SurfWithUpscaleBeforeMethod",
       {"@DATA@/camera.png", "--upscale", "0", "--method", "surf", "-o", "@TMP@/out.csv"},
       "--upscale is only for --method sift"},
      {"SurfWithContrastThreshold",
       {"@DATA@/camera.png", "--method", "surf", "--contrast-threshold", "0.1", "-o",
        "@TMP@/out.csv"},
       "only for --method sift"},
      {"SurfWithEdgeThreshold",
       {"@DATA@/camera.png", "--method", "surf", "--edge-threshold", "5", "-o", "@TMP@/out.csv"},
       "only for --method sift"},
      {"SiftWithHessianThreshold",
       {"@DATA@/camera.png", "--hessian-threshold", "300", "-o", "@TMP@/out.csv"},
       "--hessian-threshold is only for --method surf"},
      {"SiftWithExtended",
       {"@DATA@/camera.png", "--method", "sift", "--extended", "1", "-o", "@TMP@/out.csv"},
       "--extended is only for --method surf"},
      {"NegativeHessianThreshold",
       {"@DATA@/camera.png", "--method", "surf", "--hessian-threshold", "-1", "-o",
        "@TMP@/out.csv"}},
      {"NanHessianThreshold",
       {"@DATA@/camera.png", "--method", "surf", "--hessian-threshold", "nan", "-o",
        "@TMP@/out.csv"}},
      {"NineOctaves",
       {"@DATA@/camera.png", "--method", "surf", "--n-octaves", "9", "-o", "@TMP@/out.csv"}},
      {"UprightTwo",
       {"@DATA@/camera.png", "--method", "surf", "--upright", "2", "-o", "@TMP@/out.csv"}},
      {"UnknownBackend", {"@DATA@/camera.png", "--backend", "tpu", "-o", "@TMP@/out.csv"}},
      {"SigmaOutOfRange", {"@DATA@/camera.png", "--sigma", "9", "-o", "@TMP@/out.csv"}},
      {"ZeroMaxOctaves", {"@DATA@/camera.png", "--max-octaves", "0", "-o", "@TMP@/out.csv"}},
      {"NanThreshold", {"@DATA@/camera.png", "--contrast-threshold", "nan", "-o", "@TMP@/out.csv"}},
      {"ZeroOctaveLayers", {"@DATA@/camera.png", "--n-octave-layers", "0", "-o", "@TMP@/o.csv"}},
      {"ZeroBenchRuns", {"@DATA@/camera.png", "--bench", "0", "-o", "@TMP@/out.csv"}},
      {"OutputFolderMissing", {"@DATA@/camera.png", "-o", "@TMP@/no-such-folder/out.csv"}},
      {"OutputIsAFolder", {"@DATA@/camera.png", "--descriptor", "none", "-o", "@TMP@"}},
      {"DrawingExtensionUnknown",
       {"@DATA@/camera.png", "--draw", "@TMP@/out.nosuchformat", "-o", "@TMP@/out.csv"}},
      // Hostile files.
      {"EmptyImageFile", {"@TMP@/empty.png", "-o", "@TMP@/out.csv"}, "empty.png is empty"},
      {"TruncatedPng", {"@TMP@/truncated.png", "-o", "@TMP@/out.csv"}, "cannot decode"},
      {"TruncatedPnm", {"@TMP@/truncated.pnm", "-o", "@TMP@/out.csv"}, "cannot decode"},
      {"TextNamedPnm", {"@TMP@/text.pnm", "-o", "@TMP@/out.csv"}, "cannot decode"},
      {"PnmHeaderOf20000x20000WithShortData",
       {"@TMP@/huge.pnm", "-o", "@TMP@/out.gpsf"},
       "cannot decode"},
      {"ImageWiderThanTheLimit", {"@TMP@/wide.pnm", "-o", "@TMP@/out.csv"}, "larger than"},
      // Values that are not finite, negative where they cannot be, or overflow their type.
      {"InfSigma", {"@DATA@/camera.png", "--sigma", "inf", "-o", "@TMP@/o.csv"}, "bad value 'inf'"},
      {"NanSigma", {"@DATA@/camera.png", "--sigma", "nan", "-o", "@TMP@/o.csv"}, "bad value 'nan'"},
      {"MinusInfEdgeThreshold",
       {"@DATA@/camera.png", "--edge-threshold", "-inf", "-o", "@TMP@/o.csv"},
       "bad value '-inf' for --edge-threshold"},
      {"MinusNanHessianThreshold",
       {"@DATA@/camera.png", "--method", "surf", "--hessian-threshold", "-nan", "-o",
        "@TMP@/o.csv"},
       "bad value '-nan'"},
      {"InfHessianThreshold",
       {"@DATA@/camera.png", "--method", "surf", "--hessian-threshold", "inf", "-o", "@TMP@/o.csv"},
       "bad value 'inf'"},
      {"ContrastThresholdOverflowsFloat",
       {"@DATA@/camera.png", "--contrast-threshold", "1e999", "-o", "@TMP@/o.csv"},
       "bad value '1e999'"},
      {"ContrastThresholdPastFloat",
       {"@DATA@/camera.png", "--contrast-threshold", "1e39", "-o", "@TMP@/o.csv"},
       "bad value '1e39'"},
      {"NfeaturesOverflowsLong",
       {"@DATA@/camera.png", "--nfeatures", "99999999999999999999", "-o", "@TMP@/o.csv"},
       "bad value"},
      {"MaxKeypointsPastInt",
       {"@DATA@/camera.png", "--max-keypoints", "2147483648", "-o", "@TMP@/o.csv"},
       "bad value"},
      {"NegativeMaxKeypoints",
       {"@DATA@/camera.png", "--max-keypoints", "-5", "-o", "@TMP@/o.csv"},
       "bad value '-5'"},
      {"NegativeCudaDevice",
       {"@DATA@/camera.png", "--cuda-device", "-1", "-o", "@TMP@/o.csv"},
       "bad value '-1'"},
      {"FractionalBenchRuns", {"@DATA@/camera.png", "--bench", "1e3", "-o", "@TMP@/o.csv"}},
      {"HexNfeatures", {"@DATA@/camera.png", "--nfeatures", "0x10", "-o", "@TMP@/o.csv"}},
      {"OctaveLayersWithLeadingSpace",
       {"@DATA@/camera.png", "--n-octave-layers", " 3", "-o", "@TMP@/o.csv"},
       "bad value ' 3'"},
      // Outputs that cannot be written.
      {"OutputIsDevFull",
       {"@DATA@/camera.png", "--descriptor", "none", "-o", "@TMP@/full.csv"},
       "No space left on device"},
      {"UnknownOutputExtension",
       {"@DATA@/camera.png", "-o", "@TMP@/out.json"},
       "out.json' is neither .csv nor .gpsf (nor - for CSV on stdout)"},
      {"OutputWithoutExtension",
       {"@DATA@/camera.png", "-o", "/dev/full"},
       "'/dev/full' is neither .csv nor .gpsf"},
      {"FeaturesFileOnDevFull",
       {"@DATA@/camera.png", "--descriptor", "none", "-o", "@TMP@/full.gpsf"},
       "No space left on device"},
      {"DrawingOnDevFull",
       {"@DATA@/camera.png", "--descriptor", "none", "--draw", "@TMP@/full.png", "-o",
        "@TMP@/out.csv"},
       "full.png: No space left on device"},
      {"OutputIsAKernelFile",
       {"@DATA@/camera.png", "--descriptor", "none", "-o", "@TMP@/kernel.csv"},
       "kernel.csv"},
      {"OutputInAFolderThatTakesNoFiles",
       {"@DATA@/camera.png", "--descriptor", "none", "-o", "/proc/gpusift-test.csv"},
       "cannot write /proc/gpusift-test.csv"},
  };
  return inputs;
}

INSTANTIATE_TEST_SUITE_P(AllKinds, CliBadInput, ::testing::ValuesIn(bad_inputs()),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gpusift::testing
