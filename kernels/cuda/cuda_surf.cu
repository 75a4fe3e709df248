// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/cuda_surf.h"

#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_check.h"
#include "cuda_event.h"
#include "device_memory.h"
#include "extract_frame.h"
#include "frame_staging.h"
#include "gpusift/extractor.h"
#include "gpusift/host_copy.h"
#include "launch_fault_hook.h"
#include "list_primitives.h"
#include "spread_selection.h"
#include "surf_kernels.h"

namespace gpusift {

using cuda::check;
using cuda::DeviceBuffer;
using cuda::PinnedBuffer;

namespace {

constexpr int kStrideAlignment = 32;  // elements: rows start on 128-byte boundaries
constexpr int kCapacityStep = 65536;  // candidates; the lists grow in these steps

int aligned_stride(int width) {
  return (width + kStrideAlignment - 1) / kStrideAlignment * kStrideAlignment;
}

int round_up(int value, int step) {
  return (value + step - 1) / step * step;
}

}  // namespace

struct CudaSurfExtractor::State {
  cuda::LaunchFaultHook fault_hook;
  SurfParams params;
  int device = 0;
  // Host-computed weights, copied to the device on the first frame's stream.
  cuda::SurfOrientationWeights host_orientation_weights{};
  cuda::SurfDescriptorWeights host_descriptor_weights{};
  DeviceBuffer<cuda::SurfOrientationWeights> orientation_weights;
  DeviceBuffer<cuda::SurfDescriptorWeights> descriptor_weights;
  bool weights_on_device = false;

  // Per frame size.
  int width = 0, height = 0;
  int integral_stride = 0;
  DeviceBuffer<uint32_t> integral;
  DeviceBuffer<float> determinants;
  DeviceBuffer<uint32_t> masks;
  cuda::SurfLayerTable layers{};
  cuda::SurfPlan plan{};
  cuda::FrameStaging staging;

  // Per frame width: the canonical order's bins, one per column.
  DeviceBuffer<int> bin_counts, bin_starts, kept_starts;

  // Per candidate capacity, grown when a frame has more candidates. lists_ready is false while
  // a failed allocation has left some list without memory.
  int capacity = 0;
  bool lists_ready = false;
  DeviceBuffer<cuda::SurfCandidate> candidates;
  DeviceBuffer<Keypoint> oriented, keypoints, selected;
  DeviceBuffer<int> candidate_bins;
  DeviceBuffer<uint32_t> binned, ranked, order, order_sorted;
  DeviceBuffer<float> responses, responses_sorted;
  DeviceBuffer<uint8_t> keep, list_scratch;
  DeviceBuffer<uint64_t> spread_keys, spread_keys_sorted;  // nfeatures spread over a grid only
  // A row per candidate, as describing starts before the count is known. The kernels write each
  // keypoint and descriptor row to both: the host's copy crosses PCIe while they run, instead of
  // in a copy after them.
  DeviceBuffer<float> descriptors;
  PinnedBuffer<float> host_descriptors;
  PinnedBuffer<Keypoint> host_keypoints;
  float* mapped_descriptors = nullptr;  // their device addresses
  Keypoint* mapped_keypoints = nullptr;
  DeviceBuffer<int> counters;  // [0] candidates, [1] unique keypoints, [2] strongest kept
  PinnedBuffer<int> host_counters;
  cuda::Event counted;  // the counters' copy to the host is done

  const Keypoint* result_keypoints = nullptr;
  int result_count = 0;

  float threshold() const { return static_cast<float>(params.hessian_threshold); }
  bool spreads_budget() const {
    return params.nfeatures > 0 && params.distribution == KeypointDistribution::kGrid;
  }
  IntegralImageView integral_view() const {
    return IntegralImageView{integral.get(), width, height, integral_stride};
  }

  cuda::SurfOrderWork order_work() {
    return cuda::SurfOrderWork{
        width,        bin_counts.get(), bin_starts.get(), kept_starts.get(), candidate_bins.get(),
        binned.get(), ranked.get(),     keep.get()};
  }

  void allocate_lists(int needed);
  void layout_for(int frame_width, int frame_height);
  void release_layout();
  void detect_and_order(cudaStream_t stream);
  void describe(const Keypoint* kept, const int* count, cudaStream_t stream);
  void copy_descriptors_to_host(int count, cudaStream_t stream, Features* out);
  void keep_at_most(int limit, Keypoint** current, int* total, cudaStream_t stream);
  void keep_spread(Keypoint** current, int* total, cudaStream_t stream);
  void run(const FrameView& frame, cudaStream_t stream, Features* out);
};

void CudaSurfExtractor::State::describe(const Keypoint* kept, const int* count,
                                        cudaStream_t stream) {
  if (surf_descriptor_size(params) > 0)
    cuda::describe_surf(integral_view(), kept, count, capacity, params.extended,
                        descriptor_weights.get(), descriptors.get(), mapped_descriptors, stream);
}

// Once the stream is done: the first `count` descriptor rows into `out`.
void CudaSurfExtractor::State::copy_descriptors_to_host(int count, cudaStream_t stream,
                                                        Features* out) {
  const int length = surf_descriptor_size(params);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  out->byte_descriptors.clear();
  copy_to_vector(host_descriptors.get(), static_cast<size_t>(count) * length,
                 &out->float_descriptors);
  out->descriptor_format = params.descriptor;
  out->descriptor_size = length;
}

void CudaSurfExtractor::State::allocate_lists(int needed) {
  const int wanted = std::max(capacity, round_up(needed, kCapacityStep));
  const size_t cap = wanted;
  lists_ready = false;
  candidates.reserve(cap);
  oriented.reserve(cap);
  keypoints.reserve(cap);
  selected.reserve(cap);
  candidate_bins.reserve(cap);
  binned.reserve(cap);
  ranked.reserve(cap);
  order.reserve(cap);
  order_sorted.reserve(cap);
  responses.reserve(cap);
  responses_sorted.reserve(cap);
  keep.reserve(cap);
  list_scratch.reserve(cuda::list_scratch_bytes(wanted));
  if (spreads_budget()) {
    spread_keys.reserve(cap);
    spread_keys_sorted.reserve(cap);
  }
  const size_t descriptor_values = std::max<size_t>(cap * surf_descriptor_size(params), 1);
  descriptors.reserve(descriptor_values);
  host_descriptors.reserve(descriptor_values);
  host_keypoints.reserve(cap);
  mapped_descriptors = cuda::mapped_host_pointer(host_descriptors.get());
  mapped_keypoints = cuda::mapped_host_pointer(host_keypoints.get());
  counters.reserve(4);
  host_counters.reserve(4);
  capacity = wanted;
  lists_ready = true;
}

void CudaSurfExtractor::State::release_layout() {
  width = height = 0;
  integral.release();
  determinants.release();
  masks.release();
  bin_counts.release();
  bin_starts.release();
  kept_starts.release();
  layers = cuda::SurfLayerTable{};
}

void CudaSurfExtractor::State::layout_for(int frame_width, int frame_height) {
  if (frame_width == width && frame_height == height)
    return;
  release_layout();
  integral_stride = aligned_stride(frame_width + 1);
  integral.reserve(static_cast<size_t>(integral_stride) * (frame_height + 1));
  bin_counts.reserve(frame_width);
  bin_starts.reserve(frame_width + 1);
  kept_starts.reserve(frame_width + 1);

  cuda::SurfLayerTable table{};
  table.octaves = params.n_octaves;
  table.layers = params.n_octave_layers + 2;
  size_t total = 0, mask_total = 0;
  for (int o = 0; o < table.octaves; ++o) {
    table.width[o] = frame_width >> o;
    table.height[o] = frame_height >> o;
    table.stride[o] = aligned_stride(std::max(table.width[o], 1));
    table.plane[o] = static_cast<size_t>(table.stride[o]) * table.height[o];
    total += table.plane[o] * table.layers;
    table.mask_words[o] = (table.width[o] + 31) / 32;
    table.mask_plane[o] = static_cast<size_t>(table.mask_words[o]) * table.height[o];
    table.mask_offset[o] = mask_total;
    mask_total += table.mask_plane[o] * (table.layers - 2);
  }
  table.mask_offset[table.octaves] = mask_total;
  determinants.reserve(std::max<size_t>(total, 1));
  masks.reserve(std::max<size_t>(mask_total, 1));
  table.masks = masks.get();
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

// Candidates, oriented, then the survivors in `keypoints` in the canonical order without
// duplicates (the CPU's sort_and_deduplicate): counters[0] candidates, [1] survivors. Nothing
// waits for the host; a candidate count past the capacity is found when the counts come back.
void CudaSurfExtractor::State::detect_and_order(cudaStream_t stream) {
  check(cudaMemsetAsync(counters.get(), 0, 2 * sizeof(int), stream), "cudaMemsetAsync");
  check(cudaMemsetAsync(bin_counts.get(), 0, sizeof(int) * width, stream), "cudaMemsetAsync");
  cuda::detect_surf_maxima(integral_view(), layers, plan, threshold(),
                           cuda::SurfCandidateList{candidates.get(), counters.get(), capacity},
                           stream);
  const cuda::SurfOrderWork work = order_work();
  cuda::orient_surf_candidates(integral_view(), candidates.get(), counters.get(), capacity,
                               params.upright, orientation_weights.get(), oriented.get(), work,
                               stream);
  cuda::order_surf_keypoints(oriented.get(), candidates.get(), counters.get(), capacity, work,
                             keypoints.get(), mapped_keypoints, counters.get() + 1, stream);
}

// As the CPU's retain_strongest: the strongest `limit` by response, ties to the canonically first
// (keep_strongest's sort is stable), left in the canonical order.
void CudaSurfExtractor::State::keep_at_most(int limit, Keypoint** current, int* total,
                                            cudaStream_t stream) {
  const cuda::Scratch scratch{list_scratch.get(), list_scratch.bytes()};
  const cuda::StrongestWork work{responses.get(), responses_sorted.get(),
                                 order.get(),     order_sorted.get(),
                                 keep.get(),      counters.get() + 2};
  Keypoint* other = *current == keypoints.get() ? selected.get() : keypoints.get();
  cuda::keep_strongest(scratch, work, *current, *total, limit, other, stream);
  *current = other;
  *total = limit;
}

// As the CPU's retain_spread: nfeatures over the frame's grid, left in the canonical order. The
// count is the unique keypoints' on the device (counters[1]).
void CudaSurfExtractor::State::keep_spread(Keypoint** current, int* total, cudaStream_t stream) {
  const cuda::Scratch scratch{list_scratch.get(), list_scratch.bytes()};
  const cuda::SpreadWork work{spread_keys.get(), spread_keys_sorted.get(),
                              order.get(),       order_sorted.get(),
                              keep.get(),        counters.get() + 2};
  Keypoint* other = *current == keypoints.get() ? selected.get() : keypoints.get();
  cuda::keep_spread_counted_on_device(
      scratch, work, keypoint_grid_for(width, height, params.nfeatures), *current,
      counters.get() + 1, capacity, params.nfeatures, other, stream);
  *current = other;
  *total = params.nfeatures;
}

void CudaSurfExtractor::State::run(const FrameView& frame, cudaStream_t stream, Features* out) {
  if (!lists_ready)
    allocate_lists(capacity);
  if (!weights_on_device) {
    check(cudaMemcpyAsync(orientation_weights.get(), &host_orientation_weights,
                          sizeof(host_orientation_weights), cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync (weights)");
    check(cudaMemcpyAsync(descriptor_weights.get(), &host_descriptor_weights,
                          sizeof(host_descriptor_weights), cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync (weights)");
    weights_on_device = true;
  }
  layout_for(frame.width, frame.height);
  const cuda::StagedFrame staged = staging.stage(frame, device, stream);
  cuda::integral_image(staged.data, staged.pitch_bytes, frame.format, frame.luma_range, width,
                       height, integral.get(), integral_stride, stream);
  check(cudaMemsetAsync(masks.get(), 0, sizeof(uint32_t) * layers.mask_offset[layers.octaves],
                        stream),
        "cudaMemsetAsync");
  cuda::hessian_layers(integral_view(), layers, plan, threshold(), stream);
  // Without nfeatures the survivors are described while the host takes their count and
  // keypoints; a limit that cuts describes again.
  const bool describe_early = params.nfeatures == 0;
  for (;;) {
    detect_and_order(stream);
    check(cudaMemcpyAsync(host_counters.get(), counters.get(), 2 * sizeof(int),
                          cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (counts)");
    counted.record(stream);
    if (describe_early)
      describe(keypoints.get(), counters.get() + 1, stream);
    counted.synchronize();
    const int found = host_counters.get()[0];
    if (found <= capacity)
      break;
    // Which candidates won the slots of a full list would change from run to run: grow the
    // lists and detect again, once the kernels still using them are done.
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    allocate_lists(found);
  }
  int total = host_counters.get()[1];
  Keypoint* current = keypoints.get();
  bool cut = false;
  if (params.nfeatures > 0 && total > params.nfeatures) {
    if (spreads_budget())
      keep_spread(&current, &total, stream);
    else
      keep_at_most(params.nfeatures, &current, &total, stream);
    cut = true;
  }
  out->detected_count = total;
  if (total > params.max_keypoints) {
    keep_at_most(params.max_keypoints, &current, &total, stream);
    out->overflowed = true;
    cut = true;
  }
  // Uncut, the ordering kernel has already written the keypoints to the host: they are taken
  // while the descriptors are computed.
  if (!cut)
    out->keypoints.assign(host_keypoints.get(), host_keypoints.get() + total);
  else
    check(cudaMemcpyAsync(host_keypoints.get(), current, sizeof(Keypoint) * total,
                          cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (keypoints)");
  if (cut || !describe_early)
    describe(current, counters.get() + (cut ? 2 : 1), stream);
  copy_descriptors_to_host(total, stream, out);
  if (cut)
    out->keypoints.assign(host_keypoints.get(), host_keypoints.get() + total);
  result_keypoints = current;
  result_count = total;
}

CudaSurfExtractor::CudaSurfExtractor(const SurfParams& params, int device_id) : state_(new State) {
  validate(params);
  State& s = *state_;
  s.params = params;
  s.device = cuda::current_device_for(device_id);
  set_host_frame_access(HostFrameAccess::kAuto);
  s.host_orientation_weights = cuda::surf_orientation_weights();
  s.host_descriptor_weights = cuda::surf_descriptor_weights();
  s.orientation_weights.reserve(1);
  s.descriptor_weights.reserve(1);
  s.allocate_lists(kCapacityStep);
}

CudaSurfExtractor::~CudaSurfExtractor() = default;

void CudaSurfExtractor::extract(const FrameView& frame, CudaStream stream, Features* out) {
  State& s = *state_;
  cuda::extract_frame(
      frame, stream, out, &s.result_count,
      [&] {
        s.fault_hook.on_frame(stream);
        s.run(frame, stream, out);
      },
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

void CudaSurfExtractor::set_host_frame_access(HostFrameAccess access) {
  state_->staging.set_map_host_frames(cuda::maps_host_frames(access, state_->device));
}

bool CudaSurfExtractor::maps_host_frames() const {
  return state_->staging.map_host_frames();
}

size_t CudaSurfExtractor::reserved_device_bytes() const {
  const State& s = *state_;
  return s.integral.bytes() + s.determinants.bytes() + s.masks.bytes() + s.staging.device_bytes() +
         s.bin_counts.bytes() + s.bin_starts.bytes() + s.kept_starts.bytes() +
         s.candidates.bytes() + s.oriented.bytes() + s.keypoints.bytes() + s.selected.bytes() +
         s.candidate_bins.bytes() + s.binned.bytes() + s.ranked.bytes() + s.order.bytes() +
         s.order_sorted.bytes() + s.responses.bytes() + s.responses_sorted.bytes() +
         s.keep.bytes() + s.list_scratch.bytes() + s.spread_keys.bytes() +
         s.spread_keys_sorted.bytes() + s.descriptors.bytes() + s.counters.bytes();
}

}  // namespace gpusift
