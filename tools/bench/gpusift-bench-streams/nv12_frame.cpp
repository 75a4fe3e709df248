// SPDX-License-Identifier: LGPL-2.1-or-later
#include "nv12_frame.h"

#include <cuda_runtime.h>

#include <cstring>
#include <opencv2/imgproc.hpp>
#include <stdexcept>

namespace gpusift::tools {

std::vector<uint8_t> make_nv12(const cv::Mat& image, int width, int height) {
  cv::Mat bgr = image;
  if (image.channels() == 1)
    cv::cvtColor(image, bgr, cv::COLOR_GRAY2BGR);
  cv::Mat scaled;
  cv::resize(bgr, scaled, cv::Size(width, height), 0, 0,
             width > bgr.cols ? cv::INTER_CUBIC : cv::INTER_AREA);
  cv::Mat i420;  // Y, then the U plane, then the V plane
  cv::cvtColor(scaled, i420, cv::COLOR_BGR2YUV_I420);
  const size_t luma = size_t(width) * height;
  const size_t chroma = luma / 4;
  std::vector<uint8_t> nv12(luma + 2 * chroma);
  std::memcpy(nv12.data(), i420.data, luma);
  const uint8_t* u = i420.data + luma;
  const uint8_t* v = u + chroma;
  for (size_t i = 0; i < chroma; ++i) {
    nv12[luma + 2 * i] = u[i];
    nv12[luma + 2 * i + 1] = v[i];
  }
  return nv12;
}

PinnedNv12Frame::PinnedNv12Frame(const std::vector<uint8_t>& nv12, int width, int height)
    : width_(width), height_(height) {
  if (cudaMallocHost(&data_, nv12.size()) != cudaSuccess)
    throw std::runtime_error("cudaMallocHost of the NV12 frame failed");
  std::memcpy(data_, nv12.data(), nv12.size());
}

PinnedNv12Frame::~PinnedNv12Frame() {
  cudaFreeHost(data_);
}

FrameView PinnedNv12Frame::luma() const {
  return FrameView{data_,   static_cast<size_t>(width_), width_,
                   height_, PixelFormat::kGray8,         MemoryKind::kHost};
}

}  // namespace gpusift::tools
