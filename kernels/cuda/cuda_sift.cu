// SPDX-License-Identifier: LGPL-2.1-or-later
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <vector>

#include "cuda_check.h"
#include "cuda_event.h"
#include "device_memory.h"
#include "extract_frame.h"
#include "feature_kernels.h"
#include "forked_stream.h"
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
#include "spread_selection.h"
#include "upload_band_plan.h"

namespace gpusift {

using cuda::check;
using cuda::DeviceBuffer;
using cuda::DeviceImage;
using cuda::kNoImage;
using cuda::PinnedBuffer;

namespace {

constexpr int kStrideAlignment = 32;  // floats: rows start on 128-byte boundaries
constexpr int kMinCandidateCapacity = 65536;
constexpr int kInitialSortedBound = 8192;
constexpr int kEarlyDetectedOctaves = 2;

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

// The value that the device writes into a zeroed word of mapped pinned memory, or 0 where the
// work before `done` finishes, or fails, without writing it.
int wait_for_device_word(const int* word, const cuda::Event& done) {
  const volatile int* watched = word;
  int value = 0;
  const unsigned spins_per_query = 256;
  wait_while_writer_runs([&] { return (value = *watched) != 0; },
                         [&done] { return !done.finished(); }, spins_per_query);
  std::atomic_thread_fence(std::memory_order_acquire);
  return value;
}

}  // namespace

// The device counts of one frame, as the host reads them back.
enum CountIndex {
  kFoundCandidates,  // may exceed the candidate capacity: the overflow
  kEmitted,          // keypoints of all orientation peaks, may exceed the keypoint capacity
  kEmittedKept,      // min(kEmitted, keypoint capacity)
  kStrongestKept,    // after nfeatures
  kMaxKept,          // after max_keypoints
  kCountIndices
};

// What a frame hands to the host, twice over so that a frame's results travel while the next
// one runs. The frame is kept for a redo (see finish()).
struct ResultSlot {
  FrameView frame{};
  cuda::FrameStaging staging;
  int sorted_bound = 0;  // of the frame in the slot
  int capacity = 0;      // rows of the buffers below
  DeviceBuffer<Keypoint> keypoints;
  DeviceBuffer<uint8_t> descriptors;
  PinnedBuffer<Keypoint> host_keypoints;
  PinnedBuffer<uint8_t> host_descriptors;
  PinnedBuffer<int> host_counts;
  // A word per chunk of descriptor rows that the device sets once the chunk is in
  // host_descriptors (cuda::DescribedRowSignals).
  PinnedBuffer<int> host_rows_ready;
  Keypoint* mapped_keypoints = nullptr;  // the device's addresses of the pinned rows
  uint8_t* mapped_descriptors = nullptr;
  int* mapped_rows_ready = nullptr;
  int rows_copied = -1;  // descriptor rows already in the caller's Features, or none
  cuda::Event done;
  // After each band's copy when the frame is uploaded in bands. The slot's own, so that the next
  // frame's bands never record them before this frame's graph has waited on them.
  std::array<cuda::Event, cuda::kMaxUploadBands> band_uploaded;
  // Everything after the upload, captured once per frame size and replayed: about a hundred
  // small kernels whose launch cost would otherwise exceed their run time. With a banded upload
  // it starts from the uploaded bytes, waiting for each band.
  cudaGraphExec_t graph = nullptr;
  int graph_first_level = 0;                 // octave 0's first level that the graph makes
  cuda::StagedFrame graph_bands{};           // the banded upload the graph reads, or none
  LumaRange graph_range = LumaRange::kFull;  // how a banded graph reads the bytes

  ~ResultSlot() { destroy_graph(); }
  void destroy_graph() {
    if (graph)
      cudaGraphExecDestroy(graph);
    graph = nullptr;
  }
};

struct CudaSiftExtractor::State {
  cuda::LaunchFaultHook fault_hook;
  SiftParams params;
  RefineSettings refine{};
  int device = 0;
  std::vector<cuda::GaussianTaps> taps;  // index = level; [0] blurs the base image
  int candidate_capacity = 0;
  // How many candidates are sorted and given orientations: a power of two that covers the
  // frames seen so far, below the capacity, as sorting the whole list would cost more than all
  // the rest of the ordering. A frame with more candidates runs again with a larger bound.
  int sorted_bound = 0;
  int keypoint_capacity = 0;
  // Set once a frame had more than max_keypoints: from then on every frame keeps the strongest.
  bool keep_max_keypoints = false;

  // Per frame size.
  int width = 0, height = 0;
  DeviceBuffer<float> frame_float, base, scratch, side_scratch, pyramid;
  std::vector<DeviceImage> gaussian_levels_, dog_levels_;  // [octave * levels + level]
  cuda::OctaveTable table{};
  cuda::CandidateKeyLayout key_layout{};

  // Per parameters (capacity).
  DeviceBuffer<cuda::Candidate> candidates;
  DeviceBuffer<uint64_t> keys, keys_sorted;
  DeviceBuffer<uint32_t> indices, indices_sorted;
  DeviceBuffer<int> counters;  // CountIndex
  DeviceBuffer<int> peak_counts, peak_offsets;
  DeviceBuffer<float> angles;
  DeviceBuffer<Keypoint> keypoints, selected;
  DeviceBuffer<float> responses, responses_sorted;
  DeviceBuffer<uint32_t> order, order_sorted;
  DeviceBuffer<uint8_t> keep, list_scratch;
  DeviceBuffer<uint64_t> spread_keys, spread_keys_sorted;  // nfeatures spread over a grid only

  ResultSlot slots[kMaxInFlight];
  int oldest = 0, pending = 0;  // the ring of begun frames
  int finished = -1;            // the slot of the last finished frame
  int finished_count = 0;
  cudaStream_t stream = nullptr;
  // Where an octave's levels above n_octave_layers run (see enqueue_scale_space), and later the
  // keypoints' publishing beside the descriptors.
  cuda::ForkedStream tails;
  // Where the large octaves' extrema are detected while the small octaves are built.
  cuda::ForkedStream early_detection;
  // Where host frames are uploaded, so that frame N + 1's copy overlaps frame N's kernels.
  cuda::ForkedStream uploads;
  // The current frame's upload bands, and the bands of octave 0's later levels made with them.
  cuda::UploadBandPlan upload_plan;
  cuda::LevelBandPlan level_plan;
  cuda::StagedFrame bands{};       // the current frame's banded upload, or none
  int level_tile_rows = 0;         // of octave 0's one-pass blurs
  int first_levels_tile_rows = 0;  // of octave 0's first two levels, where one kernel makes both

  ~State() { drop_frames(); }

  int levels() const { return gaussian_levels(params.n_octave_layers); }
  int dogs() const { return dog_levels(params.n_octave_layers); }
  DeviceImage& gaussian(int o, int level) { return gaussian_levels_[o * levels() + level]; }
  DeviceImage& dog(int o, int level) { return dog_levels_[o * dogs() + level]; }
  size_t row_bytes() const { return kDescriptorLength * descriptor_bytes(params.descriptor); }
  bool spreads_budget() const {
    return params.nfeatures > 0 && params.distribution == KeypointDistribution::kGrid;
  }

  int bound_for(int candidates) const {
    int bound = kInitialSortedBound;
    while (bound < candidates && bound < candidate_capacity)
      bound *= 2;
    return std::min(bound, candidate_capacity);
  }
  void allocate_lists();
  void reserve_results(ResultSlot& slot, int rows);
  void layout_for(int frame_width, int frame_height);
  void release_layout();
  void destroy_graphs();
  bool starts_from_bytes(const FrameView& frame) const;
  cuda::UploadBandPlan upload_bands_for(const ResultSlot& slot) const;
  cuda::LevelBandPlan level_bands_for(const cuda::UploadBandPlan& upload) const;
  int graph_first_level() const { return 2 + level_plan.levels; }
  // The small octaves' chain of short kernels leaves most of the GPU idle: the first octaves'
  // detection, most of its work, runs beside it once their last DoG is made.
  int early_detected_octaves() const {
    return table.count > kEarlyDetectedOctaves ? kEarlyDetectedOctaves : 0;
  }
  void enqueue_banded_levels(ResultSlot& slot);
  void enqueue_input(ResultSlot& slot);
  cuda::TwoLevelTargets first_levels_targets();
  void enqueue_first_levels(const DeviceImage& start);
  void enqueue_scale_space();
  void enqueue_features(ResultSlot& slot);
  void run_features(ResultSlot& slot);
  void enqueue_frame(ResultSlot& slot);
  void begin(const FrameView& frame, cudaStream_t on_stream);
  struct Redo {
    bool keep_max_keypoints = false;
    int rows = 0;
    int sorted_bound = 0;
  };
  bool take_results(const ResultSlot& slot, Features* out, Redo* redo);
  uint8_t* sized_descriptors(int rows, Features* out) const;
  void copy_rows_as_described(ResultSlot& slot, Features* out) const;
  void finish(Features* out);
  void drop_frames();

  // Runs a step of the frames in flight; on a failure no frame is left in flight, `out` is
  // empty, and the frame-size buffers are given back when memory ran out.
  template <typename Step>
  void guarded(Features* out, Step&& step) {
    try {
      step();
    } catch (const Error& error) {
      drop_frames();
      if (out)
        out->clear();
      if (error.code() == ErrorCode::kOutOfMemory)
        release_layout();
      throw;
    }
  }
};

void CudaSiftExtractor::State::allocate_lists() {
  const size_t cap = candidate_capacity, kcap = keypoint_capacity;
  candidates.reserve(cap);
  keys.reserve(cap);
  keys_sorted.reserve(cap);
  indices.reserve(cap);
  indices_sorted.reserve(cap);
  // The counts, then the descriptor kernel's rows per chunk: one memset clears both.
  counters.reserve(kCountIndices + cuda::described_row_chunks(candidate_capacity));
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
  if (spreads_budget()) {
    spread_keys.reserve(kcap);
    spread_keys_sorted.reserve(kcap);
  }
  for (ResultSlot& slot : slots)
    slot.host_counts.reserve(kCountIndices);
}

// Grows in steps, so that a slowly rising count does not reallocate on every frame. The slot's
// buffers are not in use: its frame is finished, or the stream is idle.
void CudaSiftExtractor::State::reserve_results(ResultSlot& slot, int rows) {
  const int step = 4096;
  rows = std::min((std::max(rows, 1) + step - 1) / step * step, std::max(params.max_keypoints, 1));
  if (rows <= slot.capacity)
    return;
  slot.destroy_graph();
  slot.capacity = 0;
  slot.keypoints.reserve(rows);
  slot.host_keypoints.reserve(rows);
  slot.descriptors.reserve(rows * row_bytes());
  slot.host_descriptors.reserve(rows * row_bytes());
  slot.mapped_keypoints = cuda::mapped_host_pointer(slot.host_keypoints.get());
  slot.mapped_descriptors =
      row_bytes() > 0 ? cuda::mapped_host_pointer(slot.host_descriptors.get()) : nullptr;
  slot.host_rows_ready.reserve(cuda::described_row_chunks(rows));
  slot.mapped_rows_ready = cuda::mapped_host_pointer(slot.host_rows_ready.get());
  slot.capacity = rows;
}

void CudaSiftExtractor::State::destroy_graphs() {
  for (ResultSlot& slot : slots)
    slot.destroy_graph();
}

void CudaSiftExtractor::State::release_layout() {
  destroy_graphs();
  width = height = 0;
  frame_float.release();
  base.release();
  scratch.release();
  side_scratch.release();
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
  const int octaves = std::min(built_octaves(base_w, base_h, params.upscale, params.max_octaves),
                               cuda::kMaxOctaves);

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
  if (std::any_of(taps.begin(), taps.end(), cuda::blur_needs_scratch)) {
    scratch.reserve(static_cast<size_t>(aligned_stride(base_w)) * base_h);
    if (octaves > 1)
      side_scratch.reserve(static_cast<size_t>(aligned_stride(base_w)) * base_h);
  }
  pyramid.reserve(std::max<size_t>(total, 1));
  key_layout = cuda::candidate_key_layout(base_w, base_h, params.n_octave_layers, octaves);

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
  level_tile_rows = cuda::one_pass_tile_height(base_w, base_h);
  first_levels_tile_rows = cuda::two_level_tile_rows(taps[0], taps[1], base_w, base_h);
  width = frame_width;
  height = frame_height;
}

bool CudaSiftExtractor::State::starts_from_bytes(const FrameView& frame) const {
  return !params.upscale && table.count > 0 && frame.format == PixelFormat::kGray8 &&
         cuda::blurs_two_levels_at_once(taps[0], taps[1]);
}

// A large host frame that octave 0 starts from is uploaded in bands, each followed by the first
// two levels of its rows: all but the last band's blur run while the frame is still arriving.
cuda::UploadBandPlan CudaSiftExtractor::State::upload_bands_for(const ResultSlot& slot) const {
  const FrameView& frame = slot.frame;
  if (!starts_from_bytes(frame) || frame.memory != MemoryKind::kHost ||
      slot.staging.map_host_frames())
    return cuda::UploadBandPlan{};
  return cuda::plan_upload_bands(frame.width, frame.height, first_levels_tile_rows);
}

// Behind a banded upload, octave 0's levels up to the one the next octave starts from follow the
// bands too, where one-pass kernels make them: the upload takes about as long as they do.
cuda::LevelBandPlan CudaSiftExtractor::State::level_bands_for(
    const cuda::UploadBandPlan& upload) const {
  std::array<cuda::BandedLevel, cuda::kMaxBandedLevels> later{};
  int count = 0;
  for (int l = 2; l <= params.n_octave_layers && count < cuda::kMaxBandedLevels; ++l) {
    if (cuda::blur_needs_scratch(taps[l]))
      break;
    later[count++] = cuda::BandedLevel{taps[l].radius, level_tile_rows};
  }
  return cuda::plan_level_bands(upload, height, later.data(), count);
}

// Each band's first two levels as soon as its rows have arrived, then the rows of the later
// levels that the bands so far reach.
void CudaSiftExtractor::State::enqueue_banded_levels(ResultSlot& slot) {
  const auto* bytes = static_cast<const uint8_t*>(bands.data);
  int first = 0;
  std::array<int, cuda::kMaxBandedLevels> later_first{};
  for (int b = 0; b < upload_plan.count; ++b) {
    slot.band_uploaded[b].wait_on_from_graph(stream);
    cuda::blur_two_levels_from_gray8(
        bytes, bands.pitch_bytes, slot.frame.luma_range, taps[0], taps[1], first_levels_targets(),
        stream, cuda::RowRange{first, upload_plan.blur_ends[b]}, first_levels_tile_rows);
    first = upload_plan.blur_ends[b];
    for (int k = 0; k < level_plan.levels; ++k) {
      const int l = 2 + k;
      const cuda::RowRange rows{later_first[k], level_plan.ends[k][b]};
      cuda::gaussian_blur_rows(gaussian(0, l - 1), gaussian(0, l), taps[l], &dog(0, l - 1), rows,
                               stream);
      later_first[k] = rows.end;
    }
  }
}

// Octave 0's first two levels come from the frame outside the slot's graph, which is captured
// once while frames arrive at other addresses: a GRAY8 frame in device memory is blurred straight
// from its bytes, others go through the float frame. With upscaling the graph starts there. A
// banded upload lands in the slot's own buffer, and the graph starts from its bytes.
void CudaSiftExtractor::State::enqueue_input(ResultSlot& slot) {
  upload_plan = upload_bands_for(slot);
  const cuda::UploadBands upload{upload_plan.count, upload_plan.upload_ends.data(),
                                 slot.band_uploaded.data()};
  const cuda::StagedFrame staged =
      slot.staging.stage(slot.frame, device, uploads.unordered(), upload);
  level_plan = staged.in_bands ? level_bands_for(upload_plan) : cuda::LevelBandPlan{};
  bands = staged.in_bands ? staged : cuda::StagedFrame{};
  if (staged.uploaded && !staged.in_bands)
    uploads.join(stream);
  const bool in_device_memory = slot.frame.memory == MemoryKind::kDevice || staged.uploaded;
  if (staged.in_bands)
    return;  // the graph makes the first levels band by band
  if (starts_from_bytes(slot.frame) && in_device_memory) {
    cuda::blur_two_levels_from_gray8(
        static_cast<const uint8_t*>(staged.data), staged.pitch_bytes, slot.frame.luma_range,
        taps[0], taps[1], first_levels_targets(), stream, cuda::RowRange{}, first_levels_tile_rows);
    return;
  }
  const DeviceImage input{frame_float.get(), width, height, aligned_stride(width)};
  cuda::convert_to_float(staged.data, staged.pitch_bytes, slot.frame.format, slot.frame.luma_range,
                         input, stream);
  if (!params.upscale && table.count > 0)
    enqueue_first_levels(input);
}

cuda::TwoLevelTargets CudaSiftExtractor::State::first_levels_targets() {
  return cuda::TwoLevelTargets{gaussian(0, 1), dog(0, 0), kNoImage};
}

void CudaSiftExtractor::State::enqueue_first_levels(const DeviceImage& start) {
  if (cuda::blurs_two_levels_at_once(taps[0], taps[1])) {
    cuda::blur_two_levels(start, taps[0], taps[1], first_levels_targets(), stream,
                          first_levels_tile_rows);
    return;
  }
  const DeviceImage& level0 = gaussian(0, 0);
  const DeviceImage work{scratch.get(), level0.width, level0.height, level0.stride};
  cuda::gaussian_blur(start, work, level0, taps[0], nullptr, stream);
  cuda::gaussian_blur(level0, work, gaussian(0, 1), taps[1], &dog(0, 0), stream);
}

// Everything from octave 0's first two levels to the candidate list.
void CudaSiftExtractor::State::enqueue_scale_space() {
  if (params.upscale && table.count > 0) {
    const DeviceImage input{frame_float.get(), width, height, aligned_stride(width)};
    const DeviceImage start{base.get(), width * 2, height * 2, aligned_stride(width * 2)};
    cuda::upscale_2x(input, start, stream);
    enqueue_first_levels(start);
  }
  // The levels of an octave above n_octave_layers lead only to its DoGs, not to the next octave:
  // they run on a side stream while this one starts the next octave from level n_octave_layers,
  // so that the many short kernels of the small octaves overlap. Same results; the side stream
  // has its own scratch where the blur needs one (radii past kOnePassRadiusMax). Where a kernel
  // makes both at once, those two levels never leave shared memory: only their DoGs are written.
  const int tail_level = params.n_octave_layers + 1;
  const bool tails_at_once = cuda::blurs_two_levels_at_once(taps[tail_level], taps[tail_level + 1]);
  check(cudaMemsetAsync(counters.get(), 0, counters.bytes(), stream), "cudaMemsetAsync");
  const cuda::CandidateList list{candidates.get(), keys.get(),         indices.get(),
                                 counters.get(),   candidate_capacity, key_layout};
  const float threshold = extremum_prethreshold(params.contrast_threshold, params.n_octave_layers);
  const int early = early_detected_octaves();
  bool forked = false;
  for (int o = 0; o < table.count; ++o) {
    const DeviceImage& level0 = gaussian(o, 0);
    const DeviceImage work{scratch.get(), level0.width, level0.height, level0.stride};
    const DeviceImage side_work{side_scratch.get(), level0.width, level0.height, level0.stride};
    if (o > 0) {
      cuda::decimate_and_blur(gaussian(o - 1, params.n_octave_layers), level0, work, gaussian(o, 1),
                              taps[1], dog(o, 0), stream);
    }
    cudaStream_t on = stream;
    for (int l = o == 0 ? graph_first_level() : 2; l < levels(); ++l) {
      const bool tail = l >= tail_level && o + 1 < table.count;
      if (tail && on == stream) {
        on = tails.fork(stream);
        forked = true;
      }
      if (l == tail_level && tails_at_once) {
        const cuda::TwoLevelTargets targets{kNoImage, dog(o, l), dog(o, l - 1)};
        cuda::blur_two_levels(gaussian(o, l - 1), taps[l], taps[l + 1], targets, on);
        break;
      }
      cuda::gaussian_blur(gaussian(o, l - 1), tail ? side_work : work, gaussian(o, l), taps[l],
                          &dog(o, l - 1), on);
    }
    if (o < early)
      cuda::detect_extrema(table, {o, o + 1}, refine, threshold, list, early_detection.fork(on));
  }
  if (forked)
    tails.join(stream);
  cuda::detect_extrema(table, {early, table.count}, refine, threshold, list, stream);
  if (early > 0)
    early_detection.join(stream);
}

// From the float frame to the slot's results and counts, with every length on the device: the
// lists are sorted and scanned whole (their unused tails padded), kernels loop over the counts.
void CudaSiftExtractor::State::enqueue_features(ResultSlot& slot) {
  if (bands.data)
    enqueue_banded_levels(slot);
  enqueue_scale_space();
  slot.sorted_bound = sorted_bound;
  const cuda::CandidateList list{candidates.get(), keys.get(),   indices.get(),
                                 counters.get(),   sorted_bound, key_layout};
  const int* found = counters.get() + kFoundCandidates;
  const cuda::Scratch scratch_space{list_scratch.get(), list_scratch.bytes()};
  cuda::pad_candidate_keys(list, stream);
  cuda::sort_padded_by_key(scratch_space, keys.get(), keys_sorted.get(), indices.get(),
                           indices_sorted.get(), found, sorted_bound, key_layout.bits, stream);
  cuda::assign_orientations(table, candidates.get(), keys_sorted.get(), indices_sorted.get(), found,
                            sorted_bound, refine.first_octave, peak_counts.get(), angles.get(),
                            stream);
  cuda::exclusive_sum(scratch_space, peak_counts.get(), peak_offsets.get(), sorted_bound + 1,
                      stream);
  cuda::emit_keypoints(candidates.get(), indices_sorted.get(), found, sorted_bound,
                       peak_counts.get(), angles.get(), peak_offsets.get(), keypoints.get(),
                       keypoint_capacity, counters.get() + kEmitted, stream);

  const Keypoint* current = keypoints.get();
  const int* count = counters.get() + kEmittedKept;
  auto keep_at_most = [&](int limit, CountIndex kept) {
    Keypoint* into = current == keypoints.get() ? selected.get() : keypoints.get();
    const cuda::StrongestWork work{responses.get(), responses_sorted.get(),
                                   order.get(),     order_sorted.get(),
                                   keep.get(),      counters.get() + kept};
    cuda::keep_strongest_counted_on_device(scratch_space, work, current, count, keypoint_capacity,
                                           limit, into, stream);
    current = into;
    count = counters.get() + kept;
  };
  if (spreads_budget()) {
    Keypoint* into = selected.get();
    const cuda::SpreadWork work{spread_keys.get(), spread_keys_sorted.get(),
                                order.get(),       order_sorted.get(),
                                keep.get(),        counters.get() + kStrongestKept};
    const KeypointGrid grid =
        keypoint_grid_for(slot.frame.width, slot.frame.height, params.nfeatures);
    cuda::keep_spread_counted_on_device(scratch_space, work, grid, current, count,
                                        keypoint_capacity, params.nfeatures, into, stream);
    current = into;
    count = counters.get() + kStrongestKept;
  } else if (params.nfeatures > 0) {
    keep_at_most(params.nfeatures, kStrongestKept);
  }
  if (keep_max_keypoints)
    keep_at_most(params.max_keypoints, kMaxKept);

  // Both write host memory where it is mapped: the keypoints' writes overlap the descriptors'.
  const cuda::PublishTargets targets{slot.keypoints.get(), slot.mapped_keypoints};
  cuda::publish_results(current, count, slot.capacity, targets, tails.fork(stream));
  if (row_bytes() > 0) {
    const cuda::DescribedRowSignals signals{counters.get() + kCountIndices, slot.mapped_rows_ready};
    cuda::describe_keypoints(table, current, count, slot.capacity, refine.first_octave,
                             params.descriptor, slot.descriptors.get(), slot.mapped_descriptors,
                             stream, cuda::HistogramSums::kHalvesWhereTheyFit, signals);
  }
  tails.join(stream);
  check(cudaMemcpyAsync(slot.host_counts.get(), counters.get(), sizeof(int) * kCountIndices,
                        cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync (counts)");
}

void CudaSiftExtractor::State::run_features(ResultSlot& slot) {
  if (stream == nullptr) {  // the legacy default stream cannot be captured
    enqueue_features(slot);
    return;
  }
  const bool same_input = slot.graph_first_level == graph_first_level() &&
                          slot.graph_bands.data == bands.data &&
                          slot.graph_bands.pitch_bytes == bands.pitch_bytes &&
                          slot.graph_range == slot.frame.luma_range;
  if (slot.graph && !same_input)
    slot.destroy_graph();
  if (!slot.graph) {
    slot.graph_first_level = graph_first_level();
    slot.graph_bands = bands;
    slot.graph_range = slot.frame.luma_range;
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
          "cudaStreamBeginCapture");
    cudaGraph_t graph = nullptr;
    try {
      enqueue_features(slot);
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);
      if (graph)
        cudaGraphDestroy(graph);
      throw;
    }
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    const cudaError_t status =
        cudaGraphInstantiate(&slot.graph, graph, cudaGraphInstantiateFlagUseNodePriority);
    cudaGraphDestroy(graph);
    check(status, "cudaGraphInstantiate");
  }
  check(cudaGraphLaunch(slot.graph, stream), "cudaGraphLaunch");
}

void CudaSiftExtractor::State::enqueue_frame(ResultSlot& slot) {
  layout_for(slot.frame.width, slot.frame.height);
  reserve_results(slot, 1);
  fault_hook.on_frame(stream);
  enqueue_input(slot);
  slot.rows_copied = -1;
  std::memset(slot.host_rows_ready.get(), 0, slot.host_rows_ready.bytes());
  run_features(slot);
  slot.done.record(stream);
}

void CudaSiftExtractor::State::begin(const FrameView& frame, cudaStream_t on_stream) {
  if (pending > 0 && on_stream != stream)
    throw Error(ErrorCode::kInvalidArgument, "frames in flight must share one stream");
  if (pending == kMaxInFlight)
    throw Error(ErrorCode::kInvalidArgument, "too many frames in flight");
  const int bpp = bytes_per_pixel(frame.format);
  if (bpp == 0)
    throw Error(ErrorCode::kInvalidArgument, "unknown pixel format");
  check_frame(frame.data, frame.pitch_bytes, frame.width, frame.height, bpp);
  stream = on_stream;
  ResultSlot& slot = slots[(oldest + pending) % kMaxInFlight];
  slot.frame = frame;
  enqueue_frame(slot);
  ++pending;
}

// The frame's results into `out`, or false when the frame has to run again (`redo` says how):
// it kept more keypoints than its slot holds, or more than max_keypoints before they were cut.
bool CudaSiftExtractor::State::take_results(const ResultSlot& slot, Features* out, Redo* redo) {
  const int* counts = slot.host_counts.get();
  const int found = counts[kFoundCandidates];
  if (std::min(found, candidate_capacity) > slot.sorted_bound) {
    *redo = Redo{false, 0, bound_for(found)};
    return false;
  }
  bool overflowed = found > candidate_capacity || counts[kEmitted] > keypoint_capacity;
  int total = counts[kEmittedKept];
  if (params.nfeatures > 0)
    total = counts[kStrongestKept];
  const int detected = overflowed ? std::max(found, total) : total;
  if (total > params.max_keypoints) {
    if (!keep_max_keypoints) {
      *redo = Redo{true, params.max_keypoints};
      return false;
    }
    total = counts[kMaxKept];
    overflowed = true;
  }
  if (total > slot.capacity) {
    *redo = Redo{false, total};
    return false;
  }
  out->detected_count = detected;
  out->overflowed = overflowed;
  out->keypoints.assign(slot.host_keypoints.get(), slot.host_keypoints.get() + total);
  out->descriptor_format = params.descriptor;
  out->descriptor_size = row_bytes() > 0 ? kDescriptorLength : 0;
  if (slot.rows_copied != total)
    copy_in_parallel(slot.host_descriptors.get(), static_cast<size_t>(total) * row_bytes(),
                     sized_descriptors(total, out));
  return true;
}

// `out`'s descriptors of the extractor's format, sized for `rows` rows; the other format's none.
uint8_t* CudaSiftExtractor::State::sized_descriptors(int rows, Features* out) const {
  const size_t bytes = static_cast<size_t>(rows) * row_bytes();
  const bool as_bytes = params.descriptor == DescriptorFormat::kUint8;
  out->byte_descriptors.resize(as_bytes ? bytes : 0);
  out->float_descriptors.resize(as_bytes ? 0 : bytes / sizeof(float));
  return as_bytes ? out->byte_descriptors.data()
                  : reinterpret_cast<uint8_t*>(out->float_descriptors.data());
}

// The descriptor rows into `out` chunk by chunk as the device reports them written: a 1080p
// frame's 1.8 MB of float rows took the host 35-45 us to copy once the frame was done (H100
// host), most of which now overlaps the later rows' kernel time. Leaves rows_copied at -1 where
// the device stopped reporting, after a failure: take_results then copies, or the frame fails.
void CudaSiftExtractor::State::copy_rows_as_described(ResultSlot& slot, Features* out) const {
  const int* ready = slot.host_rows_ready.get();
  const int first_word = wait_for_device_word(&ready[0], slot.done);
  if (first_word == 0)
    return;
  const int rows = first_word - 1;
  uint8_t* into = sized_descriptors(rows, out);
  const auto chunk_ready = [ready](int chunk) {
    return static_cast<const volatile int*>(ready)[chunk] != 0;
  };
  const auto describing = [&slot] { return !slot.done.finished(); };
  if (copy_pieces_as_ready(slot.host_descriptors.get(), static_cast<size_t>(rows) * row_bytes(),
                           cuda::kDescribedRowsPerChunk * row_bytes(), into, chunk_ready,
                           describing))
    slot.rows_copied = rows;
}

// A frame that has to run again does so once the stream is idle (the frame after it, if begun,
// is then finished too and its slot untouched), from its own pixels, which the caller keeps
// until this returns.
void CudaSiftExtractor::State::finish(Features* out) {
  if (pending == 0)
    throw Error(ErrorCode::kInvalidArgument, "no frame in flight");
  const int index = oldest;
  ResultSlot& slot = slots[index];
  if (row_bytes() > 0)
    copy_rows_as_described(slot, out);
  slot.done.synchronize();
  Redo redo;
  while (!take_results(slot, out, &redo)) {
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (redo.keep_max_keypoints) {
      keep_max_keypoints = true;
      destroy_graphs();
    }
    if (redo.sorted_bound > sorted_bound) {
      sorted_bound = redo.sorted_bound;
      destroy_graphs();
    }
    reserve_results(slot, redo.rows);
    enqueue_frame(slot);
    slot.done.synchronize();
  }
  oldest = (oldest + 1) % kMaxInFlight;
  --pending;
  finished = index;
  finished_count = static_cast<int>(out->keypoints.size());
}

void CudaSiftExtractor::State::drop_frames() {
  if (pending > 0)
    cudaStreamSynchronize(stream);
  cudaGetLastError();
  pending = 0;
  finished = -1;
  finished_count = 0;
}

CudaSiftExtractor::CudaSiftExtractor(const SiftParams& params, int device_id) : state_(new State) {
  validate(params);
  State& s = *state_;
  s.params = params;
  s.refine = RefineSettings{params.n_octave_layers, params.contrast_threshold,
                            params.edge_threshold, params.sigma, params.upscale ? -1 : 0};
  s.device = cuda::current_device_for(device_id);
  set_host_frame_access(HostFrameAccess::kAuto);
  s.taps.push_back(cuda::make_gaussian_taps(initial_blur_sigma(params.sigma, params.upscale)));
  for (int level = 1; level < s.levels(); ++level)
    s.taps.push_back(
        cuda::make_gaussian_taps(level_blur_sigma(params.sigma, params.n_octave_layers, level)));
  // The lists hold every detection, not just the kept ones, so that a small max_keypoints keeps
  // the strongest of all rather than the first found.
  s.candidate_capacity = std::max(params.max_keypoints, kMinCandidateCapacity);
  s.keypoint_capacity = 2 * s.candidate_capacity;
  s.sorted_bound = s.bound_for(0);
  s.allocate_lists();
  s.tails.create();
  s.early_detection.create();
  s.uploads.create();
}

CudaSiftExtractor::~CudaSiftExtractor() = default;

void CudaSiftExtractor::extract(const FrameView& frame, CudaStream stream, Features* out) {
  if (state_->pending > 0)
    throw Error(ErrorCode::kInvalidArgument, "extract() with frames in flight");
  out->clear_keeping_descriptor_sizes();
  begin(frame, stream);
  finish(out);
}

void CudaSiftExtractor::begin(const FrameView& frame, CudaStream stream) {
  State& s = *state_;
  s.guarded(nullptr, [&] { s.begin(frame, stream); });
}

void CudaSiftExtractor::finish(Features* out) {
  State& s = *state_;
  s.guarded(out, [&] { s.finish(out); });
}

void CudaSiftExtractor::cancel() {
  state_->drop_frames();
}

int CudaSiftExtractor::in_flight() const {
  return state_->pending;
}

size_t CudaSiftExtractor::reserved_pinned_bytes() const {
  const State& s = *state_;
  size_t bytes = 0;
  for (const ResultSlot& slot : s.slots)
    bytes += slot.staging.pinned_bytes() + slot.host_counts.bytes() + slot.host_keypoints.bytes() +
             slot.host_descriptors.bytes() + slot.host_rows_ready.bytes();
  return bytes;
}

DeviceFeatures CudaSiftExtractor::device_features() const {
  const State& s = *state_;
  if (s.finished < 0)
    return DeviceFeatures{nullptr, nullptr, 0, 0, s.params.descriptor};
  const ResultSlot& slot = s.slots[s.finished];
  const bool described = descriptor_bytes(s.params.descriptor) > 0;
  return DeviceFeatures{slot.keypoints.get(), described ? slot.descriptors.get() : nullptr,
                        s.finished_count, described ? kDescriptorLength : 0, s.params.descriptor};
}

const SiftParams& CudaSiftExtractor::params() const {
  return state_->params;
}
int CudaSiftExtractor::device_id() const {
  return state_->device;
}

void CudaSiftExtractor::set_host_frame_access(HostFrameAccess access) {
  const bool map = cuda::maps_host_frames(access, state_->device);
  for (ResultSlot& slot : state_->slots)
    slot.staging.set_map_host_frames(map);
}

bool CudaSiftExtractor::maps_host_frames() const {
  return state_->slots[0].staging.map_host_frames();
}

size_t CudaSiftExtractor::reserved_device_bytes() const {
  const State& s = *state_;
  size_t slot_bytes = 0;
  for (const ResultSlot& slot : s.slots)
    slot_bytes += slot.staging.device_bytes() + slot.keypoints.bytes() + slot.descriptors.bytes();
  return s.frame_float.bytes() + s.base.bytes() + s.scratch.bytes() + s.side_scratch.bytes() +
         s.pyramid.bytes() + s.candidates.bytes() + s.keys.bytes() + s.keys_sorted.bytes() +
         s.indices.bytes() + s.indices_sorted.bytes() + s.counters.bytes() + s.peak_counts.bytes() +
         s.peak_offsets.bytes() + s.angles.bytes() + s.keypoints.bytes() + s.selected.bytes() +
         s.responses.bytes() + s.responses_sorted.bytes() + s.order.bytes() +
         s.order_sorted.bytes() + s.keep.bytes() + s.list_scratch.bytes() + s.spread_keys.bytes() +
         s.spread_keys_sorted.bytes() + slot_bytes;
}

}  // namespace gpusift
