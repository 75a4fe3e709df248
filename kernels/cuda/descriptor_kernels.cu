#include <algorithm>

#include "cuda_check.h"
#include "feature_kernels.h"
#include "fixed_point.h"
#include "gpusift/sift_descriptor.h"

namespace gpusift::cuda {

namespace {

constexpr int kThreadsPerKeypoint = 128;
static_assert(kThreadsPerKeypoint == kDescriptorLength, "one thread per descriptor value");

// Blocks take keypoints in turn; a block's threads share the window's samples and add their
// trilinear contributions to a fixed-point histogram in shared memory.
__global__ void __launch_bounds__(kThreadsPerKeypoint)
    descriptor_kernel(OctaveTable octaves, const Keypoint* keypoints, const int* count,
                      int capacity, int first_octave, DescriptorFormat format, void* descriptors) {
  __shared__ unsigned long long sums[kDescriptorHistLength];
  __shared__ float hist[kDescriptorHistLength];
  __shared__ float unit[kDescriptorLength];
  const int t = threadIdx.x;
  const int n = min(*count, capacity);
  for (int row = blockIdx.x; row < n; row += gridDim.x) {
    for (int b = t; b < kDescriptorHistLength; b += kThreadsPerKeypoint)
      sums[b] = 0;
    __syncthreads();

    const Keypoint k = keypoints[row];
    const UnpackedOctave packed = unpack_octave(k.octave);
    const FloatImageView level = octaves.gaussian[packed.octave - first_octave].layer(packed.layer);
    const DescriptorWindow window =
        descriptor_window(k.x * packed.scale, k.y * packed.scale, k.angle,
                          k.size * packed.scale * 0.5f, level.width, level.height);
    const int side = 2 * window.radius + 1;
    const int total = side * side;
    for (int s = t; s < total; s += kThreadsPerKeypoint) {
      DescriptorContribution c;
      if (!descriptor_sample(level, window, s / side - window.radius, s % side - window.radius, &c))
        continue;
      for (int slot = 0; slot < 8; ++slot)
        add_fixed_point(&sums[c.base + descriptor_slot_offset(slot)], c.w[slot]);
    }
    __syncthreads();
    for (int b = t; b < kDescriptorHistLength; b += kThreadsPerKeypoint)
      hist[b] = from_fixed_point(sums[b]);
    __syncthreads();
    if (t == 0) {
      fold_descriptor_histogram(hist, unit);
      normalize_descriptor(unit);
      if (format == DescriptorFormat::kRootSift)
        descriptor_to_rootsift(unit);
    }
    __syncthreads();
    const size_t index = static_cast<size_t>(row) * kDescriptorLength + t;
    if (format == DescriptorFormat::kUint8)
      static_cast<uint8_t*>(descriptors)[index] = descriptor_byte(unit[t]);
    else
      static_cast<float*>(descriptors)[index] = unit[t];
    __syncthreads();
  }
}

// The grid of the descriptor kernel: enough resident blocks for the GPU, looping when a frame
// has more keypoints.
constexpr int kDescriptorBlocks = 4096;

__global__ void publish_kernel(const Keypoint* keypoints, const uint8_t* descriptors,
                               const int* count, int capacity, PublishTargets targets) {
  const int n = min(*count, capacity);
  const int step = gridDim.x * blockDim.x;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = first; i < n; i += step) {
    targets.device_keypoints[i] = keypoints[i];
    targets.host_keypoints[i] = keypoints[i];
  }
  // Descriptor rows as 16-byte words (rows are 128 values of 1 or 4 bytes).
  const size_t words = static_cast<size_t>(n) * targets.row_bytes / sizeof(uint4);
  const uint4* from = reinterpret_cast<const uint4*>(descriptors);
  uint4* to = reinterpret_cast<uint4*>(targets.host_descriptors);
  for (size_t w = first; w < words; w += step)
    to[w] = from[w];
}

constexpr int kPublishBlocks = 264;
constexpr int kPublishThreads = 256;

}  // namespace

void describe_keypoints(const OctaveTable& octaves, const Keypoint* keypoints, const int* count,
                        int capacity, int first_octave, DescriptorFormat format, void* descriptors,
                        cudaStream_t stream) {
  if (capacity == 0)
    return;
  descriptor_kernel<<<std::min(capacity, kDescriptorBlocks), kThreadsPerKeypoint, 0, stream>>>(
      octaves, keypoints, count, capacity, first_octave, format, descriptors);
  check_launch("descriptor_kernel");
}

void publish_results(const Keypoint* keypoints, const void* descriptors, const int* count,
                     int capacity, const PublishTargets& targets, cudaStream_t stream) {
  publish_kernel<<<kPublishBlocks, kPublishThreads, 0, stream>>>(
      keypoints, static_cast<const uint8_t*>(descriptors), count, capacity, targets);
  check_launch("publish_kernel");
}

}  // namespace gpusift::cuda
