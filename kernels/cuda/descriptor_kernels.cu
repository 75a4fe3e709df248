#include "cuda_check.h"
#include "feature_kernels.h"
#include "fixed_point.h"
#include "gpusift/sift_descriptor.h"

namespace gpusift::cuda {

namespace {

constexpr int kThreadsPerKeypoint = 128;
static_assert(kThreadsPerKeypoint == kDescriptorLength, "one thread per descriptor value");

// One block per keypoint; its threads share the window's samples and add their trilinear
// contributions to a fixed-point histogram in shared memory.
__global__ void __launch_bounds__(kThreadsPerKeypoint)
    descriptor_kernel(OctaveTable octaves, const Keypoint* keypoints, int first_octave,
                      DescriptorFormat format, void* descriptors) {
  __shared__ unsigned long long sums[kDescriptorHistLength];
  __shared__ float hist[kDescriptorHistLength];
  __shared__ float unit[kDescriptorLength];
  const int t = threadIdx.x;
  for (int b = t; b < kDescriptorHistLength; b += kThreadsPerKeypoint)
    sums[b] = 0;
  __syncthreads();

  const Keypoint k = keypoints[blockIdx.x];
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
  const size_t index = static_cast<size_t>(blockIdx.x) * kDescriptorLength + t;
  if (format == DescriptorFormat::kUint8)
    static_cast<uint8_t*>(descriptors)[index] = descriptor_byte(unit[t]);
  else
    static_cast<float*>(descriptors)[index] = unit[t];
}

}  // namespace

void describe_keypoints(const OctaveTable& octaves, const Keypoint* keypoints, int count,
                        int first_octave, DescriptorFormat format, void* descriptors,
                        cudaStream_t stream) {
  if (count == 0)
    return;
  descriptor_kernel<<<count, kThreadsPerKeypoint, 0, stream>>>(octaves, keypoints, first_octave,
                                                               format, descriptors);
  check_launch("descriptor_kernel");
}

}  // namespace gpusift::cuda
