#include "gpusift/cuda_surf.h"

#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_check.h"
#include "device_memory.h"
#include "extract_frame.h"
#include "frame_staging.h"
#include "gpusift/extractor.h"
#include "gpusift/host_copy.h"
#include "list_primitives.h"
#include "surf_kernels.h"

namespace gpusift {

using cuda::check;
using cuda::DeviceBuffer;
using cuda::PinnedBuffer;

namespace {

constexpr int kStrideAlignment = 32;  // elements: rows start on 128-byte boundaries
constexpr int kCapacityStep = 65536;  // candidates; the lists grow in these steps
constexpr int kResultRowStep = 4096;

int aligned_stride(int width) {
  return (width + kStrideAlignment - 1) / kStrideAlignment * kStrideAlignment;
}

int round_up(int value, int step) {
  return (value + step - 1) / step * step;
}

}  // namespace

struct CudaSurfExtractor::State {
  SurfParams params;
  int device = 0;
  cuda::SurfOrientationWeights orientation_weights{};
  cuda::SurfDescriptorWeights descriptor_weights{};

  // Per frame size.
  int width = 0, height = 0;
  int integral_stride = 0;
  DeviceBuffer<uint32_t> integral;
  DeviceBuffer<float> determinants;
  cuda::SurfLayerTable layers{};
  cuda::SurfPlan plan{};
  cuda::FrameStaging staging;

  // Per candidate capacity, grown when a frame has more candidates. lists_ready is false while
  // a failed allocation has left some list without memory.
  int capacity = 0;
  bool lists_ready = false;
  DeviceBuffer<cuda::SurfCandidate> candidates;
  DeviceBuffer<Keypoint> oriented, placed, keypoints, selected;
  DeviceBuffer<uint64_t> keys, keys_sorted;
  DeviceBuffer<uint32_t> indices, indices_sorted, order, order_sorted;
  DeviceBuffer<float> responses, responses_sorted;
  DeviceBuffer<uint8_t> keep, list_scratch;
  DeviceBuffer<int> counters;  // [0] candidates, [1] unique keypoints, [2] strongest kept
  PinnedBuffer<int> host_counters;

  // Per result size.
  DeviceBuffer<float> descriptors;
  PinnedBuffer<Keypoint> host_keypoints;
  PinnedBuffer<float> host_descriptors;

  const Keypoint* result_keypoints = nullptr;
  int result_count = 0;

  IntegralImageView integral_view() const {
    return IntegralImageView{integral.get(), width, height, integral_stride};
  }

  void allocate_lists(int needed);
  void reserve_results(int count, int length);
  void layout_for(int frame_width, int frame_height);
  void release_layout();
  int collect_count(const int* device_value, cudaStream_t stream);
  int detect(cudaStream_t stream);
  void order_canonically(int n, cudaStream_t stream);
  int describe_to_host(const Keypoint* kept, int rows, const int* count_on_device,
                       cudaStream_t stream, Features* out);
  void run(const FrameView& frame, cudaStream_t stream, Features* out);
};

// Keypoints and descriptors of `kept` into `out`, and their count: `rows`, or at most that many
// when the count is still on the device (count_on_device), where it comes back with the results.
int CudaSurfExtractor::State::describe_to_host(const Keypoint* kept, int rows,
                                               const int* count_on_device, cudaStream_t stream,
                                               Features* out) {
  const int length = surf_descriptor_size(params);
  reserve_results(rows, length);
  if (length > 0)
    cuda::describe_surf(integral_view(), kept, rows, count_on_device, params.extended,
                        descriptor_weights, descriptors.get(), stream);
  if (count_on_device)
    check(cudaMemcpyAsync(host_counters.get() + 1, count_on_device, sizeof(int),
                          cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (count)");
  check(cudaMemcpyAsync(host_keypoints.get(), kept, sizeof(Keypoint) * rows, cudaMemcpyDeviceToHost,
                        stream),
        "cudaMemcpyAsync (keypoints)");
  if (length > 0 && rows > 0)
    check(cudaMemcpyAsync(host_descriptors.get(), descriptors.get(), sizeof(float) * rows * length,
                          cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (descriptors)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const int total = count_on_device ? std::min(host_counters.get()[1], rows) : rows;
  out->keypoints.assign(host_keypoints.get(), host_keypoints.get() + total);
  out->byte_descriptors.clear();
  copy_to_vector(host_descriptors.get(), static_cast<size_t>(total) * length,
                 &out->float_descriptors);
  out->descriptor_format = params.descriptor;
  out->descriptor_size = length;
  return total;
}

void CudaSurfExtractor::State::allocate_lists(int needed) {
  const int wanted = std::max(capacity, round_up(needed, kCapacityStep));
  const size_t cap = wanted;
  lists_ready = false;
  candidates.reserve(cap);
  oriented.reserve(cap);
  placed.reserve(cap);
  keypoints.reserve(cap);
  selected.reserve(cap);
  keys.reserve(cap);
  keys_sorted.reserve(cap);
  indices.reserve(cap);
  indices_sorted.reserve(cap);
  order.reserve(cap);
  order_sorted.reserve(cap);
  responses.reserve(cap);
  responses_sorted.reserve(cap);
  keep.reserve(cap);
  list_scratch.reserve(cuda::list_scratch_bytes(wanted));
  counters.reserve(4);
  host_counters.reserve(4);
  capacity = wanted;
  lists_ready = true;
}

void CudaSurfExtractor::State::reserve_results(int count, int length) {
  // Grows in steps so that a slowly rising count does not reallocate on every frame.
  const size_t rows = round_up(std::max(count, 1), kResultRowStep);
  host_keypoints.reserve(rows);
  if (length > 0) {
    descriptors.reserve(rows * length);
    host_descriptors.reserve(rows * length);
  }
}

void CudaSurfExtractor::State::release_layout() {
  width = height = 0;
  integral.release();
  determinants.release();
  layers = cuda::SurfLayerTable{};
}

void CudaSurfExtractor::State::layout_for(int frame_width, int frame_height) {
  if (frame_width == width && frame_height == height)
    return;
  release_layout();
  integral_stride = aligned_stride(frame_width + 1);
  integral.reserve(static_cast<size_t>(integral_stride) * (frame_height + 1));

  cuda::SurfLayerTable table{};
  table.octaves = params.n_octaves;
  table.layers = params.n_octave_layers + 2;
  size_t total = 0;
  for (int o = 0; o < table.octaves; ++o) {
    table.width[o] = frame_width >> o;
    table.height[o] = frame_height >> o;
    table.stride[o] = aligned_stride(std::max(table.width[o], 1));
    table.plane[o] = static_cast<size_t>(table.stride[o]) * table.height[o];
    total += table.plane[o] * table.layers;
  }
  determinants.reserve(std::max<size_t>(total, 1));
  float* cursor = determinants.get();
  for (int o = 0; o < table.octaves; ++o) {
    table.data[o] = cursor;
    cursor += table.plane[o] * table.layers;
  }
  layers = table;
  plan = cuda::plan_surf_layers(frame_width, frame_height, table.octaves, table.layers);
  width = frame_width;
  height = frame_height;
}

int CudaSurfExtractor::State::collect_count(const int* device_value, cudaStream_t stream) {
  check(cudaMemcpyAsync(host_counters.get(), device_value, sizeof(int), cudaMemcpyDeviceToHost,
                        stream),
        "cudaMemcpyAsync (count)");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return host_counters.get()[0];
}

// Candidates of the frame, all of them: a count past the capacity grows the lists and detects
// again, since which candidates won the slots of a full list would change from run to run.
int CudaSurfExtractor::State::detect(cudaStream_t stream) {
  for (;;) {
    check(cudaMemsetAsync(counters.get(), 0, sizeof(int), stream), "cudaMemsetAsync");
    cuda::detect_surf_maxima(
        integral_view(), layers, plan, static_cast<float>(params.hessian_threshold),
        cuda::SurfCandidateList{candidates.get(), counters.get(), capacity}, stream);
    const int found = collect_count(counters.get(), stream);
    if (found <= capacity)
      return found;
    allocate_lists(found);
  }
}

// Orients the candidates and leaves the survivors in `keypoints`, in the canonical order without
// duplicates (the CPU's sort_and_deduplicate); returns their count.
void CudaSurfExtractor::State::order_canonically(int n, cudaStream_t stream) {
  cuda::orient_surf_candidates(integral_view(), candidates.get(), n, params.upright,
                               orientation_weights, oriented.get(), keys.get(), indices.get(),
                               stream);
  const cuda::Scratch scratch{list_scratch.get(), list_scratch.bytes()};
  cuda::sort_by_key(scratch, keys.get(), keys_sorted.get(), indices.get(), indices_sorted.get(), n,
                    64, stream);
  cuda::place_canonically(oriented.get(), candidates.get(), keys_sorted.get(), indices_sorted.get(),
                          n, placed.get(), keep.get(), stream);
  cuda::select_kept(scratch.data, scratch.bytes, placed.get(), keep.get(), n, keypoints.get(),
                    counters.get() + 1, stream);
}

void CudaSurfExtractor::State::run(const FrameView& frame, cudaStream_t stream, Features* out) {
  if (!lists_ready)
    allocate_lists(capacity);
  layout_for(frame.width, frame.height);
  const cuda::StagedFrame staged = staging.stage(frame, device, stream);
  cuda::integral_image(staged.data, staged.pitch_bytes, frame.format, width, height, integral.get(),
                       integral_stride, stream);
  cuda::hessian_layers(integral_view(), layers, plan, stream);
  const int found = detect(stream);
  if (found > 0)
    order_canonically(found, stream);
  if (params.nfeatures == 0 && found <= params.max_keypoints) {
    // No limit can cut (at most `found` keypoints remain): their count comes back with the
    // results instead of in a host synchronisation of its own.
    const int total = describe_to_host(keypoints.get(), found,
                                       found > 0 ? counters.get() + 1 : nullptr, stream, out);
    out->detected_count = total;
    result_keypoints = keypoints.get();
    result_count = total;
    return;
  }
  int total = found > 0 ? collect_count(counters.get() + 1, stream) : 0;

  // As the CPU's retain_strongest: the strongest by response, ties to the canonically first
  // (keep_strongest's sort is stable), left in the canonical order.
  const cuda::Scratch scratch{list_scratch.get(), list_scratch.bytes()};
  const cuda::StrongestWork work{responses.get(), responses_sorted.get(),
                                 order.get(),     order_sorted.get(),
                                 keep.get(),      counters.get() + 2};
  Keypoint* current = keypoints.get();
  auto keep_at_most = [&](int limit) {
    Keypoint* other = current == keypoints.get() ? selected.get() : keypoints.get();
    cuda::keep_strongest(scratch, work, current, total, limit, other, stream);
    current = other;
    total = limit;
  };
  if (params.nfeatures > 0 && total > params.nfeatures)
    keep_at_most(params.nfeatures);
  out->detected_count = total;
  if (total > params.max_keypoints) {
    keep_at_most(params.max_keypoints);
    out->overflowed = true;
  }

  describe_to_host(current, total, nullptr, stream, out);
  result_keypoints = current;
  result_count = total;
}

CudaSurfExtractor::CudaSurfExtractor(const SurfParams& params, int device_id) : state_(new State) {
  validate(params);
  State& s = *state_;
  s.params = params;
  s.device = cuda::current_device_for(device_id);
  s.orientation_weights = cuda::surf_orientation_weights();
  s.descriptor_weights = cuda::surf_descriptor_weights();
  s.allocate_lists(kCapacityStep);
}

CudaSurfExtractor::~CudaSurfExtractor() = default;

void CudaSurfExtractor::extract(const FrameView& frame, CudaStream stream, Features* out) {
  State& s = *state_;
  cuda::extract_frame(
      frame, stream, out, &s.result_count, [&] { s.run(frame, stream, out); },
      [&] { s.release_layout(); });
}

DeviceFeatures CudaSurfExtractor::device_features() const {
  const State& s = *state_;
  const int length = surf_descriptor_size(s.params);
  return DeviceFeatures{s.result_keypoints, length > 0 ? s.descriptors.get() : nullptr,
                        s.result_count, length, s.params.descriptor};
}

const SurfParams& CudaSurfExtractor::params() const {
  return state_->params;
}

size_t CudaSurfExtractor::reserved_device_bytes() const {
  const State& s = *state_;
  return s.integral.bytes() + s.determinants.bytes() + s.staging.device_bytes() +
         s.candidates.bytes() + s.oriented.bytes() + s.placed.bytes() + s.keypoints.bytes() +
         s.selected.bytes() + s.keys.bytes() + s.keys_sorted.bytes() + s.indices.bytes() +
         s.indices_sorted.bytes() + s.order.bytes() + s.order_sorted.bytes() + s.responses.bytes() +
         s.responses_sorted.bytes() + s.keep.bytes() + s.list_scratch.bytes() + s.counters.bytes() +
         s.descriptors.bytes();
}

}  // namespace gpusift
