// SPDX-License-Identifier: LGPL-2.1-or-later
#include "match_workload.h"

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>
#include <random>

#include "gpusift/cuda_sift.h"
#include "pnm_reader.h"

namespace gpusift::tools {

namespace {

const char* const kImages[] = {"astronaut", "coffee", "chelsea", "camera", "brick", "coins"};

// Rotation by 12 degrees, scale 0.9, a little keystone, about the centre.
cv::Mat warp_of(const cv::Mat& gray) {
  const double cx = gray.cols / 2.0, cy = gray.rows / 2.0, a = 12.0 * CV_PI / 180.0, s = 0.9;
  const cv::Matx33d to_centre(1, 0, -cx, 0, 1, -cy, 0, 0, 1), back(1, 0, cx, 0, 1, cy, 0, 0, 1);
  const cv::Matx33d turn(s * std::cos(a), -s * std::sin(a), 6, s * std::sin(a), s * std::cos(a), -4,
                         2e-4, -1e-4, 1);
  cv::Mat out;
  cv::warpPerspective(gray, out, cv::Mat(back * turn * to_centre), gray.size());
  return out;
}

void append(const Features& from, Features* to) {
  to->keypoints.insert(to->keypoints.end(), from.keypoints.begin(), from.keypoints.end());
  to->float_descriptors.insert(
      to->float_descriptors.end(), from.float_descriptors.begin(),
      from.float_descriptors.begin() + from.keypoints.size() * from.descriptor_size);
  to->descriptor_size = from.descriptor_size;
  to->descriptor_format = from.descriptor_format;
}

void cut(Features* f, int count) {
  f->keypoints.resize(std::min<size_t>(f->keypoints.size(), count));
  f->float_descriptors.resize(f->keypoints.size() * kSiftDescriptorSize);
}

void random_unit_rows(int count, uint32_t seed, Features* f) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  f->keypoints.assign(count, Keypoint{});
  f->descriptor_size = kSiftDescriptorSize;
  f->descriptor_format = DescriptorFormat::kFloat;
  f->float_descriptors.resize(static_cast<size_t>(count) * kSiftDescriptorSize);
  for (int i = 0; i < count; ++i) {
    float* row = f->float_descriptors.data() + static_cast<size_t>(i) * kSiftDescriptorSize;
    double norm = 0;
    for (int k = 0; k < kSiftDescriptorSize; ++k) {
      row[k] = uniform(random);
      norm += static_cast<double>(row[k]) * row[k];
    }
    for (int k = 0; k < kSiftDescriptorSize; ++k)
      row[k] = static_cast<float>(row[k] / std::sqrt(norm));
    f->keypoints[i].x = static_cast<float>(random() % 1920);
    f->keypoints[i].y = static_cast<float>(random() % 1080);
  }
}

}  // namespace

MatchWorkload make_match_workload(const std::string& data_dir, int count) {
  MatchWorkload w;
  const OwnedCudaStream stream;
  CudaSiftExtractor extractor{SiftParams{}};
  int images = 0;
  for (const char* name : kImages) {
    cv::Mat gray = testing::read_pnm(data_dir + "/" + name + ".pnm");
    if (gray.empty())
      continue;
    if (gray.channels() == 3)
      cv::cvtColor(gray, gray, cv::COLOR_BGR2GRAY);
    const cv::Mat moved = warp_of(gray);
    const cv::Mat* original = &gray;
    for (const auto& [image, out] : {std::pair{original, &w.query}, std::pair{&moved, &w.train}}) {
      Features f;
      extractor.extract(FrameView{image->data, image->step, image->cols, image->rows,
                                  PixelFormat::kGray8, MemoryKind::kHost},
                        stream.get(), &f);
      append(f, out);
    }
    ++images;
  }
  const int real = static_cast<int>(std::min(w.query.keypoints.size(), w.train.keypoints.size()));
  if (images > 0 && real >= count) {
    cut(&w.query, count);
    cut(&w.train, count);
    w.description = "real SIFT (CUDA, defaults) of " + std::to_string(images) +
                    " test images against their perspective warps, first " + std::to_string(count) +
                    " a side";
  } else {
    random_unit_rows(count, 1, &w.query);
    random_unit_rows(count, 2, &w.train);
    w.description = "random non-negative unit vectors (" +
                    (images == 0 ? std::string("no test images in ") + data_dir
                                 : "only " + std::to_string(real) + " real features") +
                    "); RANSAC on these finds no motion";
  }
  return w;
}

std::vector<uint8_t> to_bytes(const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    bytes[i] = cv::saturate_cast<uint8_t>(512.f * values[i]);
  return bytes;
}

}  // namespace gpusift::tools
