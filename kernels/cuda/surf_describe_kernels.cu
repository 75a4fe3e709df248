// SPDX-License-Identifier: LGPL-2.1-or-later
// Descriptors, one warp per keypoint: the lanes share the 21 x 21 nodes, then each of 16 lanes
// sums one cell's 5 x 5 responses in the CPU's order, so every value is the CPU's float sum.
#include <algorithm>

#include "cuda_check.h"
#include "surf_kernels.h"

namespace gpusift::cuda {

namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kSamples = kSurfSamplesPerSide * kSurfSamplesPerSide;

__device__ void describe_one(const IntegralImageView& sum, const Keypoint& keypoint, bool extended,
                             const float* shared_weights, float* nodes, float* descriptor, int lane,
                             float* out, float* host_out) {
  const SurfDescriptorWindow window = surf_descriptor_window(keypoint, sum.width, sum.height);
  // Consecutive lanes take nodes along the window axis nearer the image's rows, so that a warp's
  // reads fall on few cache lines.
  const bool along_columns = fabsf(window.ux) >= fabsf(window.uy);
  for (int n = lane; n < kSurfNodeCount; n += 32) {
    const int major = n / kSurfNodesPerSide, minor = n % kSurfNodesPerSide;
    const int i = along_columns ? major : minor, j = along_columns ? minor : major;
    nodes[i * kSurfNodesPerSide + j] = surf_node(sum, window, i, j);
  }
  const int cell_values = surf_cell_values(extended);
  const int length = kSurfCellCount * cell_values;
  for (int v = lane; v < length; v += 32)
    descriptor[v] = 0.f;
  __syncwarp();
  if (lane < kSurfCellCount) {
    const int top = lane / kSurfCellsPerSide * kSurfSamplesPerCell;
    const int left = lane % kSurfCellsPerSide * kSurfSamplesPerCell;
    for (int i = top; i < top + kSurfSamplesPerCell; ++i) {
      for (int j = left; j < left + kSurfSamplesPerCell; ++j)
        add_surf_response(surf_response(nodes, i, j, shared_weights[i * kSurfSamplesPerSide + j]),
                          extended, descriptor + lane * cell_values);
    }
  }
  __syncwarp();
  if (lane == 0)
    normalize_surf_descriptor(descriptor, length);
  __syncwarp();
  for (int v = lane; v < length; v += 32) {
    out[v] = descriptor[v];
    host_out[v] = descriptor[v];
  }
  __syncwarp();
}

__global__ void describe_kernel(IntegralImageView sum, const Keypoint* keypoints, const int* count,
                                int capacity, bool extended, const SurfDescriptorWeights* weights,
                                float* descriptors, float* host_descriptors) {
  __shared__ float shared_weights[kSamples];
  __shared__ float nodes[kWarpsPerBlock][kSurfNodeCount];
  __shared__ float values[kWarpsPerBlock][kSurfExtendedDescriptorSize];
  const int n = min(*count, capacity);
  if (static_cast<int>(blockIdx.x) * kWarpsPerBlock >= n)
    return;
  for (int s = threadIdx.x; s < kSamples; s += blockDim.x)
    shared_weights[s] = weights->values[s];
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const size_t length = kSurfCellCount * surf_cell_values(extended);
  for (int k = blockIdx.x * kWarpsPerBlock + warp; k < n; k += gridDim.x * kWarpsPerBlock)
    describe_one(sum, keypoints[k], extended, shared_weights, nodes[warp], values[warp], lane,
                 descriptors + k * length, host_descriptors + k * length);
}

}  // namespace

SurfDescriptorWeights surf_descriptor_weights() {
  SurfDescriptorWeights w;
  for (int i = 0; i < kSurfSamplesPerSide; ++i) {
    for (int j = 0; j < kSurfSamplesPerSide; ++j)
      w.values[i * kSurfSamplesPerSide + j] = surf_descriptor_weight(i, j);
  }
  return w;
}

void describe_surf(const IntegralImageView& sum, const Keypoint* keypoints, const int* count,
                   int capacity, bool extended, const SurfDescriptorWeights* weights,
                   float* descriptors, float* host_descriptors, cudaStream_t stream) {
  if (capacity == 0)
    return;
  const int blocks = std::min((capacity + kWarpsPerBlock - 1) / kWarpsPerBlock, kSurfMaxGridBlocks);
  describe_kernel<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(
      sum, keypoints, count, capacity, extended, weights, descriptors, host_descriptors);
  check_launch("describe_kernel");
}

}  // namespace gpusift::cuda
