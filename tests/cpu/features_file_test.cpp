// SPDX-License-Identifier: LGPL-2.1-or-later
// The features file (gpusift/features_file.h): writer and reader round trips bit for bit, the
// byte layout, and every failure the two report (open, full disk, file size limit, bad input,
// bad magic, other versions, corrupt and truncated records).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gpusift/cpu_sift.h"
#include "gpusift/features_file.h"
#include "gpusift/features_file_reader.h"
#include "gpusift/features_file_writer.h"
#include "scratch_dir_fixture.h"
#include "test_images.h"

namespace gpusift::testing {
namespace {

struct Record {
  FeaturesRecordHeader header;
  std::vector<Keypoint> keypoints;
  std::vector<uint8_t> descriptors;
};

// Keypoints of arbitrary bits (NaN payloads included), so that only a byte-exact path passes.
Record random_record(std::mt19937& random, uint32_t n, DescriptorStorage type, uint32_t size) {
  Record r;
  r.header.pts = random();
  r.header.width = 1 + random() % 4000;
  r.header.height = 1 + random() % 4000;
  r.header.method = random() % 2;
  r.header.descriptor_type = type;
  r.header.descriptor_size = size;
  r.header.n_keypoints = n;
  r.keypoints.resize(n);
  for (Keypoint& k : r.keypoints) {
    uint32_t words[7];
    for (uint32_t& w : words)
      w = random();
    std::memcpy(&k, words, sizeof k);
  }
  r.descriptors.resize(r.header.descriptor_bytes());
  for (uint8_t& b : r.descriptors)
    b = static_cast<uint8_t>(random());
  return r;
}

void write_records(const std::string& path, const std::vector<Record>& records) {
  FeaturesFileWriter writer(path);
  for (const Record& r : records)
    writer.write_frame(r.header, r.keypoints.data(), r.descriptors.data());
  writer.sync();
  writer.close();
}

void expect_same(const FeaturesFrame& frame, const Record& expected) {
  const FeaturesRecordHeader& a = frame.header;
  const FeaturesRecordHeader& b = expected.header;
  EXPECT_EQ(a.flags, b.flags);
  EXPECT_EQ(a.pts, b.pts);
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.height, b.height);
  EXPECT_EQ(a.method, b.method);
  EXPECT_EQ(a.descriptor_type, b.descriptor_type);
  EXPECT_EQ(a.descriptor_size, b.descriptor_size);
  ASSERT_EQ(a.n_keypoints, b.n_keypoints);
  ASSERT_EQ(frame.keypoints.size(), expected.keypoints.size());
  // memcmp wants valid pointers even for 0 bytes, and an empty vector may have none.
  EXPECT_TRUE(expected.keypoints.empty() ||
              std::memcmp(frame.keypoints.data(), expected.keypoints.data(),
                          expected.keypoints.size() * sizeof(Keypoint)) == 0);
  EXPECT_EQ(frame.descriptors, expected.descriptors);
}

std::vector<char> file_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(file), {});
}

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<long>(bytes.size()));
}

// The code of the FeaturesFileError `action` throws, with its message checked to hold `part`.
FeaturesFileErrorCode code_of(const std::function<void()>& action, const std::string& part = "") {
  try {
    action();
  } catch (const FeaturesFileError& error) {
    EXPECT_NE(std::string(error.what()).find(part), std::string::npos) << error.what();
    EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos) << error.what();
    return error.code();
  }
  ADD_FAILURE() << "no FeaturesFileError was thrown";
  return FeaturesFileErrorCode::kInvalidArgument;
}

class FeaturesFileTest : public ScratchDirFixture {};

TEST_F(FeaturesFileTest, RecordsOfEveryDescriptorTypeComeBackBitForBit) {
  std::mt19937 random(7);
  std::vector<Record> records = {
      random_record(random, 300, DescriptorStorage::kFloat32, 128),
      random_record(random, 0, DescriptorStorage::kFloat32, 128),
      random_record(random, 77, DescriptorStorage::kUint8, 128),
      random_record(random, 5, DescriptorStorage::kNone, 0),
      random_record(random, 1, DescriptorStorage::kFloat32, 64),
      random_record(random, 0, DescriptorStorage::kNone, 0),
  };
  records[3].header.pts = kFeaturesNoPts;
  records[5].header.flags = kFeaturesRecordNoFeatures;
  write_records(path("a.gpsf"), records);

  const std::vector<FeaturesFrame> frames = read_features_file(path("a.gpsf"));
  ASSERT_EQ(frames.size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    expect_same(frames[i], records[i]);
  }
}

TEST_F(FeaturesFileTest, BytesFollowTheDocumentedLayout) {
  Record r;
  // kFeaturesRecordNoFeatures cannot go with keypoints: its place is checked by
  // EmptyOrHugeFrameSizesAndFeaturelessKeypointsAreCorrupt.
  r.header.flags = 0;
  r.header.pts = 0x0102030405060708ull;
  r.header.width = 640;
  r.header.height = 480;
  r.header.method = 1;
  r.header.descriptor_type = DescriptorStorage::kUint8;
  r.header.descriptor_size = 3;
  r.header.n_keypoints = 2;
  r.keypoints = {{1.5f, 2.5f, 3.f, 90.f, 0.25f, 0x00020101, -1}, {4.f, 5.f, 6.f, 7.f, 8.f, 9, 1}};
  r.descriptors = {1, 2, 3, 4, 5, 6};
  write_records(path("layout.gpsf"), {r});

  const std::vector<char> bytes = file_bytes(path("layout.gpsf"));
  ASSERT_EQ(bytes.size(), 16u + 40u + 2 * 28u + 6u);
  const auto u32 = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, bytes.data() + at, 4);
    return v;
  };
  EXPECT_EQ(std::string(bytes.data(), 8), std::string("GPSF\r\n\x1a\n", 8));
  EXPECT_EQ(u32(8), 1u);
  EXPECT_EQ(u32(12), 0u);
  EXPECT_EQ(std::string(bytes.data() + 16, 4), "KPTS");
  EXPECT_EQ(u32(20), 0u);
  EXPECT_EQ(u32(24), 0x05060708u);  // pts, low word first
  EXPECT_EQ(u32(28), 0x01020304u);
  EXPECT_EQ(u32(32), 640u);
  EXPECT_EQ(u32(36), 480u);
  EXPECT_EQ(u32(40), 1u);  // surf
  EXPECT_EQ(u32(44), 2u);  // uint8
  EXPECT_EQ(u32(48), 3u);
  EXPECT_EQ(u32(52), 2u);
  float x;
  std::memcpy(&x, bytes.data() + 56, 4);
  EXPECT_EQ(x, 1.5f);
  EXPECT_EQ(u32(56 + 20), 0x00020101u);               // octave
  EXPECT_EQ(static_cast<int32_t>(u32(56 + 24)), -1);  // class_id
  EXPECT_EQ(u32(56 + 28), 0x40800000u);               // the second keypoint's x, 4.0f
  EXPECT_EQ(std::string(bytes.data() + 112, 6), "\x01\x02\x03\x04\x05\x06");
}

TEST_F(FeaturesFileTest, ExtractorFeaturesRoundTripWithTheirStorage) {
  const cv::Mat gray = load_gray("camera.png");
  ASSERT_FALSE(gray.empty());
  SiftParams params;
  params.upscale = false;
  params.descriptor = DescriptorFormat::kRootSift;
  const Features rootsift =
      CpuSiftExtractor(params).extract(gray.data, gray.step, gray.cols, gray.rows);
  params.descriptor = DescriptorFormat::kUint8;
  const Features bytes =
      CpuSiftExtractor(params).extract(gray.data, gray.step, gray.cols, gray.rows);
  ASSERT_GT(rootsift.keypoints.size(), 100u);

  {
    FeaturesFileWriter writer(path("f.gpsf"));
    writer.write_frame(rootsift, Method::kSift, gray.cols, gray.rows, 40);
    writer.write_frame(bytes, Method::kSift, gray.cols, gray.rows, kFeaturesNoPts);
    writer.close();
    EXPECT_EQ(writer.frames_written(), 2u);
  }
  const std::vector<FeaturesFrame> frames = read_features_file(path("f.gpsf"));
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].header.descriptor_type, DescriptorStorage::kFloat32);
  EXPECT_EQ(frames[0].header.pts, 40u);
  EXPECT_EQ(frames[0].header.width, static_cast<uint32_t>(gray.cols));
  EXPECT_EQ(0, std::memcmp(frames[0].keypoints.data(), rootsift.keypoints.data(),
                           rootsift.keypoints.size() * sizeof(Keypoint)));
  ASSERT_EQ(frames[0].descriptors.size(), rootsift.float_descriptors.size() * sizeof(float));
  EXPECT_EQ(0, std::memcmp(frames[0].descriptors.data(), rootsift.float_descriptors.data(),
                           frames[0].descriptors.size()));
  EXPECT_EQ(frames[1].header.descriptor_type, DescriptorStorage::kUint8);
  EXPECT_EQ(frames[1].descriptors, bytes.byte_descriptors);
}

TEST_F(FeaturesFileTest, AFileWithoutFramesIsItsHeader) {
  FeaturesFileWriter(path("empty.gpsf")).close();
  EXPECT_EQ(file_bytes(path("empty.gpsf")).size(), kFeaturesFileHeaderBytes);
  FeaturesFileReader reader(path("empty.gpsf"));
  FeaturesFrame frame;
  EXPECT_FALSE(reader.next(&frame));
  EXPECT_EQ(reader.version(), 1u);
}

// Every length a file can be cut to: whole records read back, then a clear kTruncated, except at
// record boundaries, where the file simply holds fewer frames.
TEST_F(FeaturesFileTest, EveryTruncationIsReportedAfterTheWholeRecords) {
  std::mt19937 random(3);
  const std::vector<Record> records = {random_record(random, 3, DescriptorStorage::kFloat32, 4),
                                       random_record(random, 2, DescriptorStorage::kUint8, 5)};
  write_records(path("full.gpsf"), records);
  const std::vector<char> bytes = file_bytes(path("full.gpsf"));
  const size_t first_end = 16 + 40 + 3 * 28 + 3 * 4 * 4;
  ASSERT_EQ(bytes.size(), first_end + 40 + 2 * 28 + 2 * 5);

  for (size_t length = 0; length < bytes.size(); ++length) {
    SCOPED_TRACE("cut to " + std::to_string(length) + " bytes");
    write_bytes(path("cut.gpsf"), std::vector<char>(bytes.begin(), bytes.begin() + length));
    if (length < 8) {
      EXPECT_EQ(code_of([&] { FeaturesFileReader reader(path("cut.gpsf")); }, "GPSF magic"),
                FeaturesFileErrorCode::kNotAFeaturesFile);
      continue;
    }
    if (length < 16) {
      EXPECT_EQ(code_of([&] { FeaturesFileReader reader(path("cut.gpsf")); }, "file header"),
                FeaturesFileErrorCode::kTruncated);
      continue;
    }
    FeaturesFileReader reader(path("cut.gpsf"));
    FeaturesFrame frame;
    const size_t whole = length >= first_end ? 1 : 0;
    for (size_t i = 0; i < whole; ++i) {
      ASSERT_TRUE(reader.next(&frame));
      expect_same(frame, records[i]);
    }
    if (length == 16 || length == first_end) {
      EXPECT_FALSE(reader.next(&frame));
      continue;
    }
    EXPECT_EQ(code_of([&] { reader.next(&frame); },
                      "truncated in frame " + std::to_string(whole) + " (record at byte " +
                          std::to_string(whole ? first_end : 16) + ")"),
              FeaturesFileErrorCode::kTruncated);
  }
}

// `bytes` through a named pipe, a stream of unknown size: a thread writes them and closes its end
// (the reader then sees the end of the stream). SIGPIPE is ignored meanwhile, for a reader that
// stops before the last byte. The reader must open the pipe, or the writer waits for it.
class PipeFeeder {
 public:
  PipeFeeder(const std::string& fifo, std::vector<char> bytes)
      : previous_handler_(signal(SIGPIPE, SIG_IGN)) {
    EXPECT_EQ(mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
    writer_ = std::thread([fifo, bytes = std::move(bytes)] {
      const int fd = open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
      size_t written = 0;
      while (fd >= 0 && written < bytes.size()) {
        const ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
        if (n <= 0)
          break;
        written += static_cast<size_t>(n);
      }
      if (fd >= 0)
        close(fd);
    });
  }
  ~PipeFeeder() {
    writer_.join();
    signal(SIGPIPE, previous_handler_);
  }
  PipeFeeder(const PipeFeeder&) = delete;
  PipeFeeder& operator=(const PipeFeeder&) = delete;

 private:
  sighandler_t previous_handler_;
  std::thread writer_;
};

// A pipe has no size to check a record's counts against: records come back bit for bit however
// many reads their arrays take, and a count the stream does not back fails as truncated when the
// stream ends, having cost no more memory than the bytes that came. The fuzzer found the reader
// allocating a gigabyte up front for a 75-byte record claiming 37748736 keypoints
// (tests/fuzz/corpus/features_file/pipe-huge-keypoint-count.gpsf).
TEST_F(FeaturesFileTest, APipeIsReadAsItsBytesCome) {
  std::mt19937 random(29);
  // 40000 keypoints and their descriptors: more than a megabyte each, several reads.
  const std::vector<Record> records = {random_record(random, 40000, DescriptorStorage::kFloat32, 8),
                                       random_record(random, 3, DescriptorStorage::kUint8, 5),
                                       random_record(random, 0, DescriptorStorage::kNone, 0)};
  write_records(path("big.gpsf"), records);
  {
    PipeFeeder feeder(path("big.fifo"), file_bytes(path("big.gpsf")));
    FeaturesFileReader reader(path("big.fifo"));
    FeaturesFrame frame;
    for (const Record& record : records) {
      ASSERT_TRUE(reader.next(&frame));
      expect_same(frame, record);
    }
    EXPECT_FALSE(reader.next(&frame));
  }

  // A record header claiming 0x02400000 keypoints (a gigabyte), then 10 bytes.
  std::vector<char> bytes = file_bytes(path("big.gpsf"));
  bytes.resize(16);
  std::vector<char> header(40, 0);
  std::memcpy(header.data(), "KPTS", 4);
  const uint32_t fields[] = {64, 48, 0, 0, 0, 0x02400000};  // width ... n_keypoints
  std::memcpy(header.data() + 16, fields, sizeof fields);
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), 10, '\x5a');
  {
    PipeFeeder feeder(path("huge.fifo"), bytes);
    FeaturesFileReader reader(path("huge.fifo"));
    FeaturesFrame frame;
    EXPECT_EQ(code_of([&] { reader.next(&frame); },
                      "truncated in frame 0 (record at byte 16): its keypoints need 1056964608 "
                      "bytes, the file has 10 left"),
              FeaturesFileErrorCode::kTruncated);
    EXPECT_LE(frame.keypoints.capacity() * sizeof(Keypoint), size_t{2} << 20);
  }

  // Past 2 GiB the count is refused before any read, as corrupt.
  const uint32_t past[] = {0xFFFFFFFFu};
  std::memcpy(bytes.data() + 16 + 36, past, sizeof past);
  {
    PipeFeeder feeder(path("past.fifo"), bytes);
    FeaturesFileReader reader(path("past.fifo"));
    FeaturesFrame frame;
    EXPECT_EQ(code_of([&] { reader.next(&frame); }, "file of unknown size"),
              FeaturesFileErrorCode::kCorrupt);
  }
}

TEST_F(FeaturesFileTest, BadMagicOtherVersionsAndCorruptRecordsAreClearErrors) {
  std::mt19937 random(5);
  write_records(path("good.gpsf"), {random_record(random, 2, DescriptorStorage::kFloat32, 8)});
  const std::vector<char> good = file_bytes(path("good.gpsf"));
  const auto with = [&](size_t at, const std::vector<char>& patch) {
    std::vector<char> bytes = good;
    std::copy(patch.begin(), patch.end(), bytes.begin() + static_cast<long>(at));
    write_bytes(path("bad.gpsf"), bytes);
    return path("bad.gpsf");
  };
  const auto read_all = [&](const std::string& file) { read_features_file(file); };

  std::ofstream(path("text.gpsf")) << "x,y,size\n1,2,3\n";
  EXPECT_EQ(code_of([&] { read_all(path("text.gpsf")); }, path("text.gpsf") + ": not a gpusift"),
            FeaturesFileErrorCode::kNotAFeaturesFile);
  EXPECT_EQ(code_of([&] { read_all(with(4, {'\n'})); }, "GPSF magic"),
            FeaturesFileErrorCode::kNotAFeaturesFile);
  EXPECT_EQ(code_of(
                [&] {
                  read_all(with(8, {2, 0, 0, 0}));
                },
                "version 2 is not supported"),
            FeaturesFileErrorCode::kUnsupportedVersion);
  EXPECT_EQ(code_of(
                [&] {
                  read_all(with(16, {'K', 'P', 'T', 'X'}));
                },
                "no KPTS tag"),
            FeaturesFileErrorCode::kCorrupt);
  EXPECT_EQ(code_of(
                [&] {
                  read_all(with(16 + 24, {2, 0, 0, 0}));
                },
                "method 2"),
            FeaturesFileErrorCode::kCorrupt);
  EXPECT_EQ(code_of(
                [&] {
                  read_all(with(16 + 28, {3, 0, 0, 0}));
                },
                "descriptor type 3"),
            FeaturesFileErrorCode::kCorrupt);
  EXPECT_EQ(code_of(
                [&] {
                  read_all(with(16 + 28, {0, 0, 0, 0}));
                },
                "descriptor size 8"),
            FeaturesFileErrorCode::kCorrupt);
  // A count far past the file's size is refused before anything is allocated.
  EXPECT_EQ(code_of(
                [&] {
                  read_all(with(16 + 36, {'\xff', '\xff', '\xff', 0x7f}));
                },
                "need"),
            FeaturesFileErrorCode::kTruncated);
  EXPECT_EQ(code_of([&] { read_all(path("no-such.gpsf")); }, "No such file"),
            FeaturesFileErrorCode::kOpenFailed);
  EXPECT_EQ(code_of([&] { read_all(dir_); }, "Is a directory"), FeaturesFileErrorCode::kOpenFailed);
}

// A frame size of 0 or past an int, and keypoints in a record flagged "no features", are corrupt
// records: the reader refuses them, naming the frame and the cause, and the writer does not
// write them. A record flagged "no features" without keypoints stays valid, 0x0 included.
TEST_F(FeaturesFileTest, EmptyOrHugeFrameSizesAndFeaturelessKeypointsAreCorrupt) {
  std::mt19937 random(17);
  const Record good = random_record(random, 3, DescriptorStorage::kFloat32, 8);
  const struct {
    const char* name;
    size_t offset;  // of the field in the record header
    uint32_t value;
    std::string says;
    void (*change)(FeaturesRecordHeader*);
  } cases[] = {
      {"width 0", 16, 0, "frame size 0x" + std::to_string(good.header.height) + " is empty",
       [](FeaturesRecordHeader* h) { h->width = 0; }},
      {"height 0", 20, 0, "frame size " + std::to_string(good.header.width) + "x0 is empty",
       [](FeaturesRecordHeader* h) { h->height = 0; }},
      {"width 4294967295", 16, 4294967295u,
       "frame size 4294967295x" + std::to_string(good.header.height) + " is past 2147483647",
       [](FeaturesRecordHeader* h) { h->width = 4294967295u; }},
      {"height 2147483648", 20, 2147483648u,
       "frame size " + std::to_string(good.header.width) + "x2147483648 is past 2147483647 a side",
       [](FeaturesRecordHeader* h) { h->height = 2147483648u; }},
      {"no features with keypoints", 4, kFeaturesRecordNoFeatures,
       "flagged \"no features\" but holds 3 keypoints",
       [](FeaturesRecordHeader* h) { h->flags = kFeaturesRecordNoFeatures; }},
  };
  write_records(path("good.gpsf"), {good, good});
  const std::vector<char> bytes = file_bytes(path("good.gpsf"));
  const size_t second = bytes.size() / 2 + 8;  // the second record, after the 16-byte header
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    for (const size_t record : {size_t{16}, second}) {
      std::vector<char> bad = bytes;
      std::memcpy(bad.data() + record + c.offset, &c.value, sizeof c.value);
      write_bytes(path("bad.gpsf"), bad);
      const std::string where = "frame " + std::string(record == 16 ? "0" : "1") +
                                " (record at byte " + std::to_string(record) + "): ";
      EXPECT_EQ(code_of([&] { read_features_file(path("bad.gpsf")); },
                        path("bad.gpsf") + ": " + where + c.says),
                FeaturesFileErrorCode::kCorrupt);
    }
    FeaturesRecordHeader header = good.header;
    c.change(&header);
    FeaturesFileWriter writer(path("refused.gpsf"));
    EXPECT_EQ(
        code_of([&] { writer.write_frame(header, good.keypoints.data(), good.descriptors.data()); },
                c.says),
        FeaturesFileErrorCode::kInvalidArgument);
  }
  Record featureless = random_record(random, 0, DescriptorStorage::kNone, 0);
  featureless.header.flags = kFeaturesRecordNoFeatures;
  // keypointfilesink writes 0x0 for a buffer without the meta when its caps gave no size.
  Record sizeless = featureless;
  sizeless.header.width = 0;
  sizeless.header.height = 0;
  write_records(path("featureless.gpsf"), {featureless, sizeless});
  const std::vector<FeaturesFrame> frames = read_features_file(path("featureless.gpsf"));
  ASSERT_EQ(frames.size(), 2u);
  expect_same(frames[0], featureless);
  expect_same(frames[1], sizeless);
}

TEST_F(FeaturesFileTest, WriterOpenFailuresNameThePathAndTheReason) {
  for (const std::string& location :
       {path("no-such-folder/a.gpsf"), dir_, std::string("/proc/gpusift-cannot-create.gpsf")}) {
    SCOPED_TRACE(location);
    int error_number = 0;
    try {
      FeaturesFileWriter writer(location);
      ADD_FAILURE() << "opened";
    } catch (const FeaturesFileError& error) {
      EXPECT_EQ(error.code(), FeaturesFileErrorCode::kOpenFailed);
      EXPECT_NE(std::string(error.what()).find("cannot open " + location), std::string::npos)
          << error.what();
      EXPECT_NE(std::string(error.what()).find(std::strerror(error.system_errno())),
                std::string::npos)
          << error.what();
      error_number = error.system_errno();
    }
    EXPECT_NE(error_number, 0);
  }
}

TEST_F(FeaturesFileTest, AFullDiskFailsAtTheFileHeader) {
  try {
    FeaturesFileWriter writer("/dev/full");
    ADD_FAILURE() << "the header was written to /dev/full";
  } catch (const FeaturesFileError& error) {
    EXPECT_EQ(error.code(), FeaturesFileErrorCode::kWriteFailed);
    EXPECT_EQ(error.system_errno(), ENOSPC);
    EXPECT_NE(std::string(error.what()).find("/dev/full"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("file header"), std::string::npos) << error.what();
  }
}

// Caps this process's file size for a scope: writes past it fail with EFBIG, as a full disk does
// with ENOSPC, at the exact byte.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    previous_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, previous_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_{};
  sighandler_t previous_handler_;
};

TEST_F(FeaturesFileTest, AWriteFailureIsSeenAtItsFrameAndKeepsTheWholeRecords) {
  std::mt19937 random(11);
  const Record record = random_record(random, 10, DescriptorStorage::kFloat32, 16);
  const size_t record_bytes = 40 + 10 * 28 + 10 * 16 * 4;
  {
    FeaturesFileWriter writer(path("limited.gpsf"));
    const FileSizeLimit limit(16 + 2 * record_bytes + record_bytes / 2);
    writer.write_frame(record.header, record.keypoints.data(), record.descriptors.data());
    writer.write_frame(record.header, record.keypoints.data(), record.descriptors.data());
    try {
      writer.write_frame(record.header, record.keypoints.data(), record.descriptors.data());
      ADD_FAILURE() << "the third record fitted";
    } catch (const FeaturesFileError& error) {
      EXPECT_EQ(error.code(), FeaturesFileErrorCode::kWriteFailed);
      EXPECT_EQ(error.system_errno(), EFBIG);
      EXPECT_NE(std::string(error.what()).find("frame index 2"), std::string::npos) << error.what();
    }
    EXPECT_EQ(code_of([&] {
                writer.write_frame(record.header, record.keypoints.data(),
                                   record.descriptors.data());
              }),
              FeaturesFileErrorCode::kWriteFailed);
    EXPECT_EQ(writer.frames_written(), 2u);
  }
  EXPECT_EQ(file_bytes(path("limited.gpsf")).size(), 16 + 2 * record_bytes);
  const std::vector<FeaturesFrame> frames = read_features_file(path("limited.gpsf"));
  ASSERT_EQ(frames.size(), 2u);
  expect_same(frames[1], record);
}

TEST_F(FeaturesFileTest, InconsistentRecordsAreRefusedBeforeAnythingIsWritten) {
  FeaturesFileWriter writer(path("w.gpsf"));
  std::mt19937 random(13);
  Record r = random_record(random, 4, DescriptorStorage::kFloat32, 8);
  EXPECT_EQ(code_of([&] { writer.write_frame(r.header, nullptr, r.descriptors.data()); }, "null"),
            FeaturesFileErrorCode::kInvalidArgument);
  EXPECT_EQ(code_of([&] { writer.write_frame(r.header, r.keypoints.data(), nullptr); }, "null"),
            FeaturesFileErrorCode::kInvalidArgument);
  FeaturesRecordHeader bad = r.header;
  bad.method = 5;
  EXPECT_EQ(code_of([&] { writer.write_frame(bad, r.keypoints.data(), r.descriptors.data()); },
                    "method 5"),
            FeaturesFileErrorCode::kInvalidArgument);
  bad = r.header;
  bad.descriptor_type = DescriptorStorage::kNone;
  EXPECT_EQ(code_of([&] { writer.write_frame(bad, r.keypoints.data(), r.descriptors.data()); },
                    "descriptor size 8"),
            FeaturesFileErrorCode::kInvalidArgument);
  Features short_rows;
  short_rows.keypoints.resize(3);
  short_rows.descriptor_format = DescriptorFormat::kFloat;
  short_rows.descriptor_size = 128;
  short_rows.float_descriptors.resize(128);
  EXPECT_EQ(code_of([&] { writer.write_frame(short_rows, Method::kSift, 10, 10, 0); },
                    "3 keypoints carry 1 descriptor rows"),
            FeaturesFileErrorCode::kInvalidArgument);
  writer.write_frame(r.header, r.keypoints.data(), r.descriptors.data());
  writer.close();
  EXPECT_EQ(code_of([&] { writer.write_frame(r.header, r.keypoints.data(), nullptr); }, "closed"),
            FeaturesFileErrorCode::kInvalidArgument);

  const std::vector<FeaturesFrame> frames = read_features_file(path("w.gpsf"));
  ASSERT_EQ(frames.size(), 1u);
  expect_same(frames[0], r);
}

}  // namespace
}  // namespace gpusift::testing
