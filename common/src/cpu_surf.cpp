// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/cpu_surf.h"

#include <omp.h>

#include <vector>

#include "cpu_integral_image.h"
#include "gpusift/error.h"
#include "gpusift/keypoint_selection.h"
#include "gpusift/surf_descriptor.h"
#include "gpusift/surf_extrema.h"
#include "gpusift/surf_hessian.h"
#include "gpusift/surf_orientation.h"
#include "host_frame.h"

namespace gpusift {

namespace {

// Determinants are kept for three layers at a time: the two below the one computed last are
// all that the search of the middle one needs.
constexpr int kDeterminantSlots = 3;

}  // namespace

struct CpuSurfExtractor::State {
  SurfParams params;
  int frame_width = 0, frame_height = 0;
  std::vector<uint32_t> integral;
  std::vector<float> determinants;  // kDeterminantSlots layers of the first octave's grid
  std::vector<std::vector<Keypoint>> per_thread;
  std::vector<Keypoint> keypoints;
  float orientation_weights[kSurfOrientationCandidates];
  float descriptor_weights[kSurfSamplesPerSide * kSurfSamplesPerSide];

  int integral_stride() const { return frame_width + 1; }
  IntegralImageView integral_view() const {
    return {integral.data(), frame_width, frame_height, integral_stride()};
  }
  size_t slot_size() const { return static_cast<size_t>(frame_width) * frame_height; }
  // Layer `layer` of octave `octave` lives in slot layer % 3, on the octave's sample grid.
  FloatImageView layer_view(int octave, int layer) const {
    const int width = frame_width >> octave, height = frame_height >> octave;
    return {determinants.data() + (layer % kDeterminantSlots) * slot_size(), width, height, width};
  }

  void layout_for(int width, int height);
  void compute_layer(int octave, int layer);
  void search_layer(int octave, int layer);
  bool orient(Keypoint* k) const;
  void detect();
  void describe(Features* out) const;
};

void CpuSurfExtractor::State::layout_for(int width, int height) {
  if (width == frame_width && height == frame_height)
    return;
  frame_width = frame_height = 0;
  // Fresh vectors rather than assign(): a smaller frame gives the larger one's memory back.
  integral = std::vector<uint32_t>(static_cast<size_t>(width + 1) * (height + 1));
  determinants = std::vector<float>(kDeterminantSlots * static_cast<size_t>(width) * height);
  frame_width = width;
  frame_height = height;
}

void CpuSurfExtractor::State::compute_layer(int octave, int layer) {
  const SurfLayerGrid grid = surf_layer_grid(octave, layer, frame_width, frame_height);
  const HessianFilter filter = hessian_filter(grid.size);
  const IntegralImageView sum = integral_view();
  const FloatImageView view = layer_view(octave, layer);
  float* out = determinants.data() + (layer % kDeterminantSlots) * slot_size();
#pragma omp parallel for schedule(static)
  for (int i = grid.row_begin; i < grid.row_end; ++i) {
    float* row = out + static_cast<size_t>(i) * view.stride;
    for (int j = grid.col_begin; j < grid.col_end; ++j)
      row[j] = hessian_response(sum, filter, grid.top(i), grid.left(j)).det;
  }
}

// Turns the keypoint to its dominant orientation; false when OpenCV would drop it.
bool CpuSurfExtractor::State::orient(Keypoint* k) const {
  SurfOrientationWindow window;
  if (!surf_orientation_window(*k, frame_width, frame_height, &window))
    return false;
  if (params.upright) {
    k->angle = kSurfUprightAngle;
    return true;
  }
  const IntegralImageView sum = integral_view();
  SurfDegreeBins bins;
  clear_degree_bins(&bins);
  bool sampled = false;
  for (int c = 0; c < kSurfOrientationCandidates; ++c) {
    SurfOrientationSample sample;
    if (!surf_orientation_sample(sum, window, c, orientation_weights[c], &sample))
      continue;
    add_to_degree_bins(sample, &bins);
    sampled = true;
  }
  if (!sampled)
    return false;
  k->angle = dominant_orientation(bins);
  return true;
}

void CpuSurfExtractor::State::search_layer(int octave, int layer) {
  const SurfLayerGrid grid = surf_layer_grid(octave, layer, frame_width, frame_height);
  const SurfSearchRange range =
      surf_search_range(surf_layer_grid(octave, layer - 1, frame_width, frame_height), grid,
                        surf_layer_grid(octave, layer + 1, frame_width, frame_height));
  if (range.empty())
    return;
  const DeterminantStack stack{layer_view(octave, layer - 1), layer_view(octave, layer),
                               layer_view(octave, layer + 1)};
  const HessianFilter filter = hessian_filter(grid.size);
  const IntegralImageView sum = integral_view();
  const float threshold = static_cast<float>(params.hessian_threshold);
#pragma omp parallel for schedule(dynamic, 8)
  for (int i = range.row_begin; i < range.row_end; ++i) {
    std::vector<Keypoint>& found = per_thread[omp_get_thread_num()];
    for (int j = range.col_begin; j < range.col_end; ++j) {
      if (!is_determinant_maximum(stack, i, j, threshold))
        continue;
      SurfOffset offset;
      if (!interpolate_maximum(stack, i, j, &offset))
        continue;
      const float trace = hessian_response(sum, filter, grid.top(i), grid.left(j)).trace;
      Keypoint k = surf_keypoint(grid, octave, i, j, offset, stack.here.at(i, j), trace);
      if (orient(&k))
        found.push_back(k);
    }
  }
}

void CpuSurfExtractor::State::detect() {
  // The application may have raised the OpenMP thread count since construction.
  if (per_thread.size() < static_cast<size_t>(omp_get_max_threads()))
    per_thread.resize(omp_get_max_threads());
  for (auto& list : per_thread)
    list.clear();
  for (int octave = 0; octave < params.n_octaves; ++octave) {
    for (int layer = 0; layer < params.n_octave_layers + 2; ++layer) {
      compute_layer(octave, layer);
      if (layer >= 2)
        search_layer(octave, layer - 1);
    }
  }
  keypoints.clear();
  for (const auto& list : per_thread)
    keypoints.insert(keypoints.end(), list.begin(), list.end());
}

void CpuSurfExtractor::State::describe(Features* out) const {
  const int count = static_cast<int>(out->keypoints.size());
  const int length = surf_descriptor_size(params);
  out->descriptor_format = params.descriptor;
  out->descriptor_size = length;
  if (length == 0)
    return;
  out->float_descriptors.resize(static_cast<size_t>(count) * length);
  const IntegralImageView sum = integral_view();
  const bool extended = params.extended;
  const int cell_values = surf_cell_values(extended);
#pragma omp parallel for schedule(dynamic, 16)
  for (int k = 0; k < count; ++k) {
    const SurfDescriptorWindow window =
        surf_descriptor_window(out->keypoints[k], frame_width, frame_height);
    float nodes[kSurfNodeCount];
    for (int i = 0; i < kSurfNodesPerSide; ++i) {
      for (int j = 0; j < kSurfNodesPerSide; ++j)
        nodes[i * kSurfNodesPerSide + j] = surf_node(sum, window, i, j);
    }
    float* descriptor = out->float_descriptors.data() + static_cast<size_t>(k) * length;
    for (int v = 0; v < length; ++v)
      descriptor[v] = 0.f;
    for (int i = 0; i < kSurfSamplesPerSide; ++i) {
      for (int j = 0; j < kSurfSamplesPerSide; ++j) {
        const float weight = descriptor_weights[i * kSurfSamplesPerSide + j];
        add_surf_response(surf_response(nodes, i, j, weight), extended,
                          descriptor + surf_cell_of(i, j) * cell_values);
      }
    }
    normalize_surf_descriptor(descriptor, length);
  }
}

CpuSurfExtractor::CpuSurfExtractor(const SurfParams& params) : state_(new State) {
  validate(params);
  State& s = *state_;
  s.params = params;
  s.per_thread.resize(omp_get_max_threads());
  for (int c = 0; c < kSurfOrientationCandidates; ++c)
    s.orientation_weights[c] = surf_orientation_weight(c);
  for (int i = 0; i < kSurfSamplesPerSide; ++i) {
    for (int j = 0; j < kSurfSamplesPerSide; ++j)
      s.descriptor_weights[i * kSurfSamplesPerSide + j] = surf_descriptor_weight(i, j);
  }
}

CpuSurfExtractor::~CpuSurfExtractor() = default;

void CpuSurfExtractor::extract(const uint8_t* gray, size_t pitch_bytes, int width, int height,
                               Features* out) {
  State& s = *state_;
  cpu::extract_frame(
      gray, pitch_bytes, width, height, out,
      [&] {
        s.layout_for(width, height);
        cpu::integral_image(gray, pitch_bytes, width, height, s.integral.data(),
                            s.integral_stride());
        s.detect();
        const KeypointBudget budget{s.params.nfeatures, s.params.distribution, width, height};
        select_detections(&s.keypoints, budget, s.params.max_keypoints, out);
        s.describe(out);
      },
      [&] { s.frame_width = s.frame_height = 0; });
}

Features CpuSurfExtractor::extract(const uint8_t* gray, size_t pitch_bytes, int width, int height) {
  Features out;
  extract(gray, pitch_bytes, width, height, &out);
  return out;
}

const SurfParams& CpuSurfExtractor::params() const {
  return state_->params;
}

size_t CpuSurfExtractor::reserved_bytes() const {
  const State& s = *state_;
  return s.integral.capacity() * sizeof(uint32_t) + s.determinants.capacity() * sizeof(float);
}

}  // namespace gpusift
