// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-extract writing features files (.gpsf): a video gives one record per decoded frame,
// equal bit for bit to the library's features of that frame with the decoder's timestamp; an
// image gives one record; bad videos and outputs print one stderr line and exit with 2.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>
#include <string>
#include <vector>

#include "cli_paths.h"
#include "gpusift/cpu_sift.h"
#include "gpusift/cpu_surf.h"
#include "gpusift/features_file.h"
#include "gpusift/features_file_reader.h"
#include "scratch_dir_test.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

constexpr int kVideoFrames = 6;
constexpr double kVideoFps = 25;

bool is_one_error_line(const std::string& err) {
  return err.rfind("gpusift-extract: ", 0) == 0 && err.find('\n') == err.size() - 1;
}

struct DecodedFrame {
  cv::Mat gray;
  uint64_t pts;
};

// The frames as OpenCV decodes them, converted to gray as the CLI documents.
std::vector<DecodedFrame> decode(const std::string& video_path) {
  std::vector<DecodedFrame> frames;
  cv::VideoCapture capture(video_path);
  cv::Mat bgr;
  while (capture.read(bgr)) {
    DecodedFrame frame;
    cv::cvtColor(bgr, frame.gray, cv::COLOR_BGR2GRAY);
    frame.pts = static_cast<uint64_t>(std::llround(capture.get(cv::CAP_PROP_POS_MSEC) * 1e6));
    frames.push_back(frame);
  }
  return frames;
}

void expect_record_equals(const FeaturesFrame& frame, const Features& expected, uint32_t method) {
  EXPECT_EQ(frame.header.flags, 0u);
  EXPECT_EQ(frame.header.method, method);
  ASSERT_EQ(frame.keypoints.size(), expected.keypoints.size());
  EXPECT_EQ(0, std::memcmp(frame.keypoints.data(), expected.keypoints.data(),
                           expected.keypoints.size() * sizeof(Keypoint)));
  EXPECT_EQ(frame.header.descriptor_type, descriptor_storage_of(expected.descriptor_format));
  EXPECT_EQ(frame.header.descriptor_size, static_cast<uint32_t>(expected.descriptor_size));
  if (expected.descriptor_format == DescriptorFormat::kUint8) {
    EXPECT_EQ(frame.descriptors, expected.byte_descriptors);
  } else {
    ASSERT_EQ(frame.descriptors.size(), expected.float_descriptors.size() * sizeof(float));
    EXPECT_EQ(0, std::memcmp(frame.descriptors.data(), expected.float_descriptors.data(),
                             frame.descriptors.size()));
  }
}

class CliFeaturesFileTest : public ScratchDirTest {
 protected:
  ChildResult run(std::vector<std::string> args) const {
    return run_program(GPUSIFT_EXTRACT_PATH, std::move(args));
  }

  // A short MJPG video of the camera image panning and turning: every frame differs.
  std::string make_video() const {
    const std::string video = path("pan.avi");
    const cv::Mat source = load_bgr("astronaut.png");
    EXPECT_FALSE(source.empty());
    cv::VideoWriter writer(video, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), kVideoFps,
                           cv::Size(240, 180));
    EXPECT_TRUE(writer.isOpened()) << "OpenCV cannot write MJPG AVI here";
    for (int i = 0; i < kVideoFrames; ++i) {
      const cv::Mat turn = cv::getRotationMatrix2D(cv::Point2f(256, 256), 4.0 * i, 1.0);
      cv::Mat turned, frame;
      cv::warpAffine(source, turned, turn, source.size());
      cv::resize(turned(cv::Rect(60 + 12 * i, 100, 360, 270)), frame, cv::Size(240, 180), 0, 0,
                 cv::INTER_AREA);
      writer.write(frame);
    }
    return video;
  }
};

TEST_F(CliFeaturesFileTest, VideoGivesOneRecordPerDecodedFrameEqualToTheLibrary) {
  const std::string video = make_video();
  const ChildResult r = run({"--backend", "cpu", video, "-o", path("pan.gpsf")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.err, "");

  const std::vector<DecodedFrame> decoded = decode(video);
  ASSERT_EQ(decoded.size(), static_cast<size_t>(kVideoFrames));
  const std::vector<FeaturesFrame> frames = read_features_file(path("pan.gpsf"));
  ASSERT_EQ(frames.size(), decoded.size());
  CpuSiftExtractor library{SiftParams{}};
  size_t keypoints = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    const cv::Mat& gray = decoded[i].gray;
    const Features expected = library.extract(gray.data, gray.step, gray.cols, gray.rows);
    EXPECT_GT(expected.keypoints.size(), 50u);
    expect_record_equals(frames[i], expected, 0);
    EXPECT_EQ(frames[i].header.width, 240u);
    EXPECT_EQ(frames[i].header.height, 180u);
    EXPECT_EQ(frames[i].header.pts, decoded[i].pts);
    EXPECT_EQ(frames[i].header.pts, static_cast<uint64_t>(std::llround(i * 1e9 / kVideoFps)));
    keypoints += expected.keypoints.size();
  }
  EXPECT_NE(frames[0].keypoints.size(), frames[kVideoFrames - 1].keypoints.size());
  const std::string summary = video + ": " + std::to_string(kVideoFrames) + " frames, " +
                              std::to_string(keypoints) + " keypoints (cpu, 240x180) -> " +
                              path("pan.gpsf") + "\n";
  EXPECT_EQ(r.out, summary);
}

TEST_F(CliFeaturesFileTest, VideoWithSurfAndUint8Descriptors) {
  const std::string video = make_video();
  const std::vector<DecodedFrame> decoded = decode(video);
  ASSERT_EQ(decoded.size(), static_cast<size_t>(kVideoFrames));

  ChildResult r = run({"--backend", "cpu", "--method", "surf", "--hessian-threshold", "300", video,
                       "-o", path("surf.gpsf")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  SurfParams surf;
  surf.hessian_threshold = 300;
  CpuSurfExtractor surf_library{surf};
  std::vector<FeaturesFrame> frames = read_features_file(path("surf.gpsf"));
  ASSERT_EQ(frames.size(), decoded.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    SCOPED_TRACE("surf frame " + std::to_string(i));
    const cv::Mat& g = decoded[i].gray;
    expect_record_equals(frames[i], surf_library.extract(g.data, g.step, g.cols, g.rows), 1);
  }

  r = run({"--backend", "cpu", "--descriptor", "uint8", "--upscale", "0", video, "-o",
           path("u8.gpsf")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  SiftParams sift = video_sift_params();  // --upscale 0 without --sigma
  sift.descriptor = DescriptorFormat::kUint8;
  CpuSiftExtractor sift_library{sift};
  frames = read_features_file(path("u8.gpsf"));
  ASSERT_EQ(frames.size(), decoded.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    SCOPED_TRACE("uint8 frame " + std::to_string(i));
    const cv::Mat& g = decoded[i].gray;
    expect_record_equals(frames[i], sift_library.extract(g.data, g.step, g.cols, g.rows), 0);
  }
}

TEST_F(CliFeaturesFileTest, ImageGivesOneRecordWithoutATimestamp) {
  const ChildResult r =
      run({"--backend", "cpu", GPUSIFT_CLI_TEST_DATA_DIR "/coins.png", "-o", path("coins.GPSF")});
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const cv::Mat gray = load_gray("coins.png");
  const Features expected =
      CpuSiftExtractor{SiftParams{}}.extract(gray.data, gray.step, gray.cols, gray.rows);
  ASSERT_GT(expected.keypoints.size(), 100u);
  const std::vector<FeaturesFrame> frames = read_features_file(path("coins.GPSF"));
  ASSERT_EQ(frames.size(), 1u);
  expect_record_equals(frames[0], expected, 0);
  EXPECT_EQ(frames[0].header.pts, kFeaturesNoPts);
  EXPECT_EQ(frames[0].header.width, static_cast<uint32_t>(gray.cols));
  EXPECT_EQ(frames[0].header.height, static_cast<uint32_t>(gray.rows));
}

std::string file_bytes(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The CPU backend's SSE2, AVX2 and AVX-512 variants of its blur, difference of Gaussians and
// extremum scan give the same bits (docs/performance.md): gpusift-extract, each variant forced
// through the test hook GPUSIFT_TEST_CPU_ISA, writes the same file, byte for byte, in the three
// modes. A variant the CPU lacks falls back to the best (printed); on aarch64 all are the one.
TEST_F(CliFeaturesFileTest, EveryCpuVariantWritesTheSameFile) {
  struct Mode {
    const char* name;
    std::vector<std::string> args;
  };
  const std::vector<Mode> modes = {
      {"upscaled", {}}, {"video", {"--upscale", "0"}}, {"surf", {"--method", "surf"}}};
  const char* const variants[] = {"sse2", "avx2", "avx512"};
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  std::printf("CPU variants run: sse2%s%s\n", __builtin_cpu_supports("avx2") ? ", avx2" : "",
              __builtin_cpu_supports("avx512f") ? ", avx512" : "");
#endif
  for (const Mode& mode : modes) {
    std::vector<std::string> files;
    for (const char* variant : variants) {
      const std::string out = path(std::string(mode.name) + "-" + variant + ".gpsf");
      std::vector<std::string> args = {"--backend", "cpu"};
      args.insert(args.end(), mode.args.begin(), mode.args.end());
      args.insert(args.end(), {GPUSIFT_CLI_TEST_DATA_DIR "/camera.png", "-o", out});
      ASSERT_EQ(setenv("GPUSIFT_TEST_CPU_ISA", variant, 1), 0);
      const ChildResult r = run(args);
      unsetenv("GPUSIFT_TEST_CPU_ISA");
      ASSERT_EQ(r.exit_status, 0) << mode.name << " " << variant << ": " << r.err;
      files.push_back(file_bytes(out));
    }
    ASSERT_GT(files[0].size(), 100u * kFeaturesKeypointBytes) << mode.name;
    for (size_t i = 1; i < files.size(); ++i)
      EXPECT_TRUE(files[i] == files[0]) << mode.name << ": " << variants[i] << " differs from sse2";
  }
}

struct BadVideoRun {
  const char* name;
  std::vector<std::string> args;  // @TMP@: the scratch folder, @VIDEO@: a good video there
  const char* message;
};

class CliBadVideoRun : public CliFeaturesFileTest,
                       public ::testing::WithParamInterface<BadVideoRun> {};

TEST_P(CliBadVideoRun, ExitsWithOneStderrLine) {
  const std::string video = make_video();
  std::ofstream(path("not-a-video.avi")) << "plain text, neither an image nor a video\n";
  std::filesystem::create_symlink("/dev/full", path("full.gpsf"));
  std::filesystem::create_directory(path("folder.gpsf"));
  std::vector<std::string> args = GetParam().args;
  for (std::string& arg : args) {
    for (const auto& [token, value] :
         {std::pair<std::string, std::string>{"@TMP@", dir_}, {"@VIDEO@", video}}) {
      const size_t at = arg.find(token);
      if (at != std::string::npos)
        arg.replace(at, token.size(), value);
    }
  }
  const ChildResult r = run(args);
  EXPECT_EQ(r.exit_status, kFailureStatus) << r.out << r.err;
  EXPECT_TRUE(is_one_error_line(r.err)) << "stderr: [" << r.err << "]";
  EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    AllKinds, CliBadVideoRun,
    ::testing::Values(
        BadVideoRun{"MissingVideo", {"@TMP@/no-such.avi", "-o", "@TMP@/o.gpsf"}, "cannot open"},
        BadVideoRun{"NeitherImageNorVideo",
                    {"@TMP@/not-a-video.avi", "-o", "@TMP@/o.gpsf"},
                    "as an image or a video"},
        BadVideoRun{"VideoToCsv", {"@VIDEO@", "-o", "@TMP@/o.csv"}, "-o OUT.gpsf"},
        BadVideoRun{"VideoWithDraw",
                    {"@VIDEO@", "--draw", "@TMP@/d.png", "-o", "@TMP@/o.gpsf"},
                    "--draw takes an image"},
        BadVideoRun{"VideoWithBench",
                    {"@VIDEO@", "--bench", "2", "-o", "@TMP@/o.gpsf"},
                    "--bench takes an image"},
        BadVideoRun{"OutputFolderMissing",
                    {"@VIDEO@", "-o", "@TMP@/no-such-folder/o.gpsf"},
                    "is missing or not writable"},
        BadVideoRun{"OutputIsAFolder", {"@VIDEO@", "-o", "@TMP@/folder.gpsf"}, "Is a directory"},
        BadVideoRun{"DiskFull", {"@VIDEO@", "-o", "@TMP@/full.gpsf"}, "No space left on device"},
        BadVideoRun{"ImageToFullDisk",
                    {GPUSIFT_CLI_TEST_DATA_DIR "/camera.png", "-o", "@TMP@/full.gpsf"},
                    "No space left on device"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace gpusift::testing
