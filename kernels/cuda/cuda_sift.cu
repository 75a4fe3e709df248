#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <vector>

#include "cuda_check.h"
#include "device_memory.h"
#include "extract_frame.h"
#include "feature_kernels.h"
#include "frame_staging.h"
#include "gpusift/cuda_sift.h"
#include "gpusift/extractor.h"
#include "gpusift/host_copy.h"
#include "gpusift/sift_descriptor.h"
#include "gpusift/sift_extrema.h"
#include "gpusift/sift_scale_space.h"
#include "launch_fault_hook.h"
#include "list_primitives.h"
#include "pyramid_kernels.h"

namespace gpusift {

using cuda::check;
using cuda::DeviceBuffer;
using cuda::DeviceImage;
using cuda::PinnedBuffer;

namespace {

constexpr int kStrideAlignment = 32;  // floats: rows start on 128-byte boundaries
constexpr int kMinCandidateCapacity = 65536;

int aligned_stride(int width) {
  return (width + kStrideAlignment - 1) / kStrideAlignment * kStrideAlignment;
}

size_t descriptor_bytes(DescriptorFormat format) {
  switch (format) {
    case DescriptorFormat::kNone:
      return 0;
    case DescriptorFormat::kUint8:
      return 1;
    case DescriptorFormat::kFloat:
    case DescriptorFormat::kRootSift:
      return sizeof(float);
  }
  return 0;
}

}  // namespace

struct CudaSiftExtractor::State {
  cuda::LaunchFaultHook fault_hook;
  SiftParams params;
  RefineSettings refine{};
  int device = 0;
  std::vector<cuda::GaussianTaps> taps;  // index = level; [0] blurs the base image
  int candidate_capacity = 0;
  int keypoint_capacity = 0;

  // Per frame size.
  int width = 0, height = 0;
  DeviceBuffer<float> frame_float, base, scratch, pyramid;
  std::vector<DeviceImage> gaussian_levels_, dog_levels_;  // [octave * levels + level]
  cuda::OctaveTable table{};
  cuda::FrameStaging staging;

  // Per parameters (capacity).
  DeviceBuffer<cuda::Candidate> candidates;
  DeviceBuffer<uint64_t> keys, keys_sorted;
  DeviceBuffer<uint32_t> indices, indices_sorted;
  DeviceBuffer<int> counters;  // [0] candidates
  DeviceBuffer<int> peak_counts, peak_offsets;
  DeviceBuffer<float> angles;
  DeviceBuffer<Keypoint> keypoints, selected;
  DeviceBuffer<float> responses, responses_sorted;
  DeviceBuffer<uint32_t> order, order_sorted;
  DeviceBuffer<uint8_t> keep, list_scratch, descriptors;
  PinnedBuffer<int> host_counters;
  PinnedBuffer<Keypoint> host_keypoints;
  PinnedBuffer<uint8_t> host_descriptors;

  std::deque<Features> pending;  // temporary: begun frames, run synchronously
  const Keypoint* result_keypoints = nullptr;
  int result_count = 0;

  // The scale-space launches of one frame size, captured once and replayed every frame: they
  // are ~100 small kernels whose launch cost would otherwise exceed their run time.
  cudaGraphExec_t scale_space_graph = nullptr;

  ~State() { destroy_graph(); }
  void destroy_graph() {
    if (scale_space_graph)
      cudaGraphExecDestroy(scale_space_graph);
    scale_space_graph = nullptr;
  }

  int levels() const { return gaussian_levels(params.n_octave_layers); }
  int dogs() const { return dog_levels(params.n_octave_layers); }
  DeviceImage& gaussian(int o, int level) { return gaussian_levels_[o * levels() + level]; }
  DeviceImage& dog(int o, int level) { return dog_levels_[o * dogs() + level]; }

  void allocate_lists();
  void reserve_results(int count);
  void layout_for(int frame_width, int frame_height);
  void release_layout();
  void convert_input(const FrameView& frame, cudaStream_t stream);
  void enqueue_scale_space(cudaStream_t stream);
  void run_scale_space(cudaStream_t stream);
  int collect_count(const int* device_value, cudaStream_t stream);
  void run(const FrameView& frame, cudaStream_t stream, Features* out);
};

void CudaSiftExtractor::State::allocate_lists() {
  const size_t cap = candidate_capacity, kcap = keypoint_capacity;
  candidates.reserve(cap);
  keys.reserve(cap);
  keys_sorted.reserve(cap);
  indices.reserve(cap);
  indices_sorted.reserve(cap);
  counters.reserve(4);
  peak_counts.reserve(cap + 1);
  peak_offsets.reserve(cap + 1);
  angles.reserve(cap * cuda::kMaxOrientationPeaks);
  keypoints.reserve(kcap);
  selected.reserve(kcap);
  responses.reserve(kcap);
  responses_sorted.reserve(kcap);
  order.reserve(kcap);
  order_sorted.reserve(kcap);
  keep.reserve(kcap);
  list_scratch.reserve(cuda::list_scratch_bytes(std::max(keypoint_capacity, candidate_capacity)));
  host_counters.reserve(4);
}

void CudaSiftExtractor::State::reserve_results(int count) {
  // Grows in steps so that a slowly rising count does not reallocate on every frame.
  const size_t step = 4096;
  const size_t rows = (static_cast<size_t>(count) + step - 1) / step * step;
  const size_t bytes = rows * kDescriptorLength * descriptor_bytes(params.descriptor);
  host_keypoints.reserve(rows);
  descriptors.reserve(bytes);
  host_descriptors.reserve(bytes);
}

void CudaSiftExtractor::State::release_layout() {
  destroy_graph();
  width = height = 0;
  frame_float.release();
  base.release();
  scratch.release();
  pyramid.release();
  gaussian_levels_.clear();
  dog_levels_.clear();
  table.count = 0;
}

void CudaSiftExtractor::State::layout_for(int frame_width, int frame_height) {
  if (frame_width == width && frame_height == height)
    return;
  release_layout();
  const int scale = params.upscale ? 2 : 1;
  const int base_w = frame_width * scale, base_h = frame_height * scale;
  const int octaves = std::min(octave_count(base_w, base_h, params.upscale), cuda::kMaxOctaves);

  std::vector<int> widths(octaves), heights(octaves);
  size_t total = 0;
  for (int o = 0; o < octaves; ++o) {
    widths[o] = o == 0 ? base_w : widths[o - 1] / 2;
    heights[o] = o == 0 ? base_h : heights[o - 1] / 2;
    total += static_cast<size_t>(aligned_stride(widths[o])) * heights[o] * (levels() + dogs());
  }
  frame_float.reserve(static_cast<size_t>(aligned_stride(frame_width)) * frame_height);
  if (params.upscale)
    base.reserve(static_cast<size_t>(aligned_stride(base_w)) * base_h);
  scratch.reserve(static_cast<size_t>(aligned_stride(base_w)) * base_h);
  pyramid.reserve(std::max<size_t>(total, 1));

  float* cursor = pyramid.get();
  table.count = octaves;
  for (int o = 0; o < octaves; ++o) {
    const int stride = aligned_stride(widths[o]);
    const size_t plane = static_cast<size_t>(stride) * heights[o];
    table.gaussian[o] = LayerStackView{cursor, widths[o], heights[o], stride, plane};
    for (int l = 0; l < levels(); ++l)
      gaussian_levels_.push_back(DeviceImage{cursor + l * plane, widths[o], heights[o], stride});
    cursor += plane * levels();
    table.dog[o] = LayerStackView{cursor, widths[o], heights[o], stride, plane};
    for (int l = 0; l < dogs(); ++l)
      dog_levels_.push_back(DeviceImage{cursor + l * plane, widths[o], heights[o], stride});
    cursor += plane * dogs();
  }
  width = frame_width;
  height = frame_height;
}

void CudaSiftExtractor::State::convert_input(const FrameView& frame, cudaStream_t stream) {
  const cuda::StagedFrame staged = staging.stage(frame, device, stream);
  const DeviceImage input{frame_float.get(), width, height, aligned_stride(width)};
  cuda::convert_to_float(staged.data, staged.pitch_bytes, frame.format, input, stream);
}

// Everything from the float frame to the candidate list; its arguments depend only on the
// frame size, which is what lets it be captured as a graph.
void CudaSiftExtractor::State::enqueue_scale_space(cudaStream_t stream) {
  const DeviceImage input{frame_float.get(), width, height, aligned_stride(width)};
  DeviceImage start = input;
  if (params.upscale) {
    start = DeviceImage{base.get(), width * 2, height * 2, aligned_stride(width * 2)};
    cuda::upscale_2x(input, start, stream);
  }
  for (int o = 0; o < table.count; ++o) {
    const DeviceImage work{scratch.get(), gaussian(o, 0).width, gaussian(o, 0).height,
                           gaussian(o, 0).stride};
    if (o == 0)
      cuda::gaussian_blur(start, work, gaussian(0, 0), taps[0], nullptr, stream);
    else
      cuda::decimate_2x(gaussian(o - 1, params.n_octave_layers), gaussian(o, 0), stream);
    for (int l = 1; l < levels(); ++l)
      cuda::gaussian_blur(gaussian(o, l - 1), work, gaussian(o, l), taps[l], &dog(o, l - 1),
                          stream);
  }
  check(cudaMemsetAsync(counters.get(), 0, sizeof(int), stream), "cudaMemsetAsync");
  const cuda::CandidateList list{candidates.get(), keys.get(), indices.get(), counters.get(),
                                 candidate_capacity};
  cuda::detect_extrema(table, refine,
                       extremum_prethreshold(params.contrast_threshold, params.n_octave_layers),
                       list, stream);
}

void CudaSiftExtractor::State::run_scale_space(cudaStream_t stream) {
  if (stream == nullptr) {  // the legacy default stream cannot be captured
    enqueue_scale_space(stream);
    return;
  }
  if (!scale_space_graph) {
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
          "cudaStreamBeginCapture");
    cudaGraph_t graph = nullptr;
    try {
      enqueue_scale_space(stream);
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);
      if (graph)
        cudaGraphDestroy(graph);
      throw;
    }
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    const cudaError_t status = cudaGraphInstantiate(&scale_space_graph, graph, 0);
    cudaGraphDestroy(graph);
    check(status, "cudaGraphInstantiate");
  }
  check(cudaGraphLaunch(scale_space_graph, stream), "cudaGraphLaunch");
}

int CudaSiftExtractor::State::collect_count(const int* device_value, cudaStream_t stream) {
  check(cudaMemcpyAsync(host_counters.get(), device_value, sizeof(int), cudaMemcpyDeviceToHost,
                        stream),
        "cudaMemcpyAsync (count)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return host_counters.get()[0];
}

void CudaSiftExtractor::State::run(const FrameView& frame, cudaStream_t stream, Features* out) {
  layout_for(frame.width, frame.height);
  convert_input(frame, stream);
  run_scale_space(stream);
  const int found = collect_count(counters.get(), stream);
  bool overflowed = found > candidate_capacity;
  const int n = std::min(found, candidate_capacity);

  int total = 0;
  const cuda::Scratch scratch_space{list_scratch.get(), list_scratch.bytes()};
  if (n > 0) {
    cuda::sort_by_key(scratch_space, keys.get(), keys_sorted.get(), indices.get(),
                      indices_sorted.get(), n, cuda::kCandidateKeyBits, stream);
    cuda::assign_orientations(table, candidates.get(), keys_sorted.get(), indices_sorted.get(), n,
                              refine.first_octave, peak_counts.get(), angles.get(), stream);
    cuda::exclusive_sum(scratch_space, peak_counts.get(), peak_offsets.get(), n + 1, stream);
    cuda::emit_keypoints(candidates.get(), indices_sorted.get(), n, peak_counts.get(), angles.get(),
                         peak_offsets.get(), keypoints.get(), keypoint_capacity, stream);
    total = collect_count(peak_offsets.get() + n, stream);
  }
  if (total > keypoint_capacity) {
    overflowed = true;
    total = keypoint_capacity;
  }

  const cuda::StrongestWork work{responses.get(), responses_sorted.get(),
                                 order.get(),     order_sorted.get(),
                                 keep.get(),      counters.get() + 1};
  Keypoint* current = keypoints.get();
  auto keep_at_most = [&](int limit) {
    cuda::keep_strongest(scratch_space, work, current, total, limit, selected.get(), stream);
    check(cudaMemcpyAsync(keypoints.get(), selected.get(), sizeof(Keypoint) * limit,
                          cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpyAsync (selected keypoints)");
    total = limit;
  };
  if (params.nfeatures > 0 && total > params.nfeatures)
    keep_at_most(params.nfeatures);
  out->detected_count = overflowed ? std::max(found, total) : total;
  if (total > params.max_keypoints) {
    keep_at_most(params.max_keypoints);
    overflowed = true;
  }
  out->overflowed = overflowed;

  reserve_results(total);
  const size_t value_bytes = descriptor_bytes(params.descriptor);
  if (value_bytes > 0)
    cuda::describe_keypoints(table, current, total, refine.first_octave, params.descriptor,
                             descriptors.get(), stream);
  check(cudaMemcpyAsync(host_keypoints.get(), current, sizeof(Keypoint) * total,
                        cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync (keypoints)");
  const size_t descriptor_total = static_cast<size_t>(total) * kDescriptorLength * value_bytes;
  if (descriptor_total > 0)
    check(cudaMemcpyAsync(host_descriptors.get(), descriptors.get(), descriptor_total,
                          cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (descriptors)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  result_keypoints = current;
  result_count = total;

  out->keypoints.assign(host_keypoints.get(), host_keypoints.get() + total);
  out->descriptor_format = params.descriptor;
  out->descriptor_size = value_bytes > 0 ? kDescriptorLength : 0;
  const bool as_bytes = params.descriptor == DescriptorFormat::kUint8;
  const size_t float_values = as_bytes ? 0 : descriptor_total / sizeof(float);
  copy_to_vector(host_descriptors.get(), as_bytes ? descriptor_total : 0, &out->byte_descriptors);
  copy_to_vector(reinterpret_cast<const float*>(host_descriptors.get()), float_values,
                 &out->float_descriptors);
}

CudaSiftExtractor::CudaSiftExtractor(const SiftParams& params, int device_id) : state_(new State) {
  validate(params);
  State& s = *state_;
  s.params = params;
  s.refine = RefineSettings{params.n_octave_layers, params.contrast_threshold,
                            params.edge_threshold, params.sigma, params.upscale ? -1 : 0};
  s.device = cuda::current_device_for(device_id);
  s.taps.push_back(cuda::make_gaussian_taps(initial_blur_sigma(params.sigma, params.upscale)));
  for (int level = 1; level < s.levels(); ++level)
    s.taps.push_back(
        cuda::make_gaussian_taps(level_blur_sigma(params.sigma, params.n_octave_layers, level)));
  // The lists hold every detection, not just the kept ones, so that a small max_keypoints keeps
  // the strongest of all rather than the first found.
  s.candidate_capacity = std::max(params.max_keypoints, kMinCandidateCapacity);
  s.keypoint_capacity = 2 * s.candidate_capacity;
  s.allocate_lists();
}

CudaSiftExtractor::~CudaSiftExtractor() = default;

void CudaSiftExtractor::extract(const FrameView& frame, CudaStream stream, Features* out) {
  State& s = *state_;
  cuda::extract_frame(
      frame, stream, out, &s.result_count,
      [&] {
        s.fault_hook.on_frame(stream);
        s.run(frame, stream, out);
      },
      [&] { s.release_layout(); });
}

void CudaSiftExtractor::begin(const FrameView& frame, CudaStream stream) {
  State& s = *state_;
  if (s.pending.size() >= static_cast<size_t>(kMaxInFlight))
    throw Error(ErrorCode::kInvalidArgument, "too many frames in flight");
  s.pending.emplace_back();
  try {
    extract(frame, stream, &s.pending.back());
  } catch (...) {
    s.pending.clear();
    throw;
  }
}

void CudaSiftExtractor::finish(Features* out) {
  State& s = *state_;
  if (s.pending.empty())
    throw Error(ErrorCode::kInvalidArgument, "no frame in flight");
  std::swap(*out, s.pending.front());
  s.pending.pop_front();
}

void CudaSiftExtractor::cancel() {
  state_->pending.clear();
}

int CudaSiftExtractor::in_flight() const {
  return static_cast<int>(state_->pending.size());
}

size_t CudaSiftExtractor::reserved_pinned_bytes() const {
  const State& s = *state_;
  return s.staging.pinned_bytes() + s.host_counters.bytes() + s.host_keypoints.bytes() +
         s.host_descriptors.bytes();
}

DeviceFeatures CudaSiftExtractor::device_features() const {
  const State& s = *state_;
  const bool described = descriptor_bytes(s.params.descriptor) > 0;
  return DeviceFeatures{s.result_keypoints, described ? s.descriptors.get() : nullptr,
                        s.result_count, described ? kDescriptorLength : 0, s.params.descriptor};
}

const SiftParams& CudaSiftExtractor::params() const {
  return state_->params;
}
int CudaSiftExtractor::device_id() const {
  return state_->device;
}

size_t CudaSiftExtractor::reserved_device_bytes() const {
  const State& s = *state_;
  return s.frame_float.bytes() + s.base.bytes() + s.scratch.bytes() + s.pyramid.bytes() +
         s.staging.device_bytes() + s.candidates.bytes() + s.keys.bytes() + s.keys_sorted.bytes() +
         s.indices.bytes() + s.indices_sorted.bytes() + s.counters.bytes() + s.peak_counts.bytes() +
         s.peak_offsets.bytes() + s.angles.bytes() + s.keypoints.bytes() + s.selected.bytes() +
         s.responses.bytes() + s.responses_sorted.bytes() + s.order.bytes() +
         s.order_sorted.bytes() + s.keep.bytes() + s.list_scratch.bytes() + s.descriptors.bytes();
}

}  // namespace gpusift
