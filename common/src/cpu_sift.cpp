// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/cpu_sift.h"
#include "cpu_isa.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "cpu_image_ops.h"
#include "gpusift/error.h"
#include "gpusift/keypoint_selection.h"
#include "gpusift/sift_descriptor.h"
#include "gpusift/sift_extrema.h"
#include "gpusift/sift_orientation.h"
#include "gpusift/sift_scale_space.h"
#include "host_frame.h"

namespace gpusift {

// Outside the anonymous namespace on purpose: clang emits no copy of an internal constructor for
// the target_clones variants of compute_descriptor, which then fail to link.
namespace cpu_sift_detail {

// For each row dy of a descriptor window, the columns [first, last] outside of which
// descriptor_sample certainly rejects the sample: there the rotated (row, column) bin falls
// outside (-1, d) by far more than the sample's float rounding. Skipping those samples changes
// nothing but the time (about half of the square window lies outside the rotated one).
class DescriptorRowSpans {
 public:
  explicit DescriptorRowSpans(const DescriptorWindow& w);
  void row(int dy, int* first, int* last) const {
    double lo = -radius_, hi = radius_;
    for (const Limit& l : limits_) {
      if (!l.active)
        continue;
      // dx between (+-half - dy * cross) / slope, widened by a column on each side.
      const double a = l.low + dy * l.step, b = l.high + dy * l.step;
      lo = std::max(lo, std::floor(std::min(a, b)) - 1.0);
      hi = std::min(hi, std::ceil(std::max(a, b)) + 1.0);
    }
    *first = static_cast<int>(lo);
    *last = static_cast<int>(hi);
  }

 private:
  struct Limit {
    bool active;
    double low, high, step;
  };
  void set(int i, double slope, double cross) {
    const double half = kDescriptorWidth / 2.0 + 0.5;
    // Where dx hardly matters there is no limit worth the risk.
    limits_[i].active = std::fabs(slope) >= 1e-3;
    if (!limits_[i].active)
      return;
    limits_[i].low = -half / slope;
    limits_[i].high = half / slope;
    limits_[i].step = -cross / slope;
  }
  int radius_;
  Limit limits_[2];
};

DescriptorRowSpans::DescriptorRowSpans(const DescriptorWindow& w) : radius_(w.radius) {
  // descriptor_sample: rbin = dx * sin_t + dy * cos_t + d / 2 - 0.5,
  //                    cbin = dx * cos_t - dy * sin_t + d / 2 - 0.5, both in (-1, d), that is
  // |dx * slope + dy * cross| < d / 2 + 0.5 for (slope, cross) = (sin_t, cos_t), (cos_t, -sin_t).
  set(0, w.sin_t, w.cos_t);
  set(1, w.cos_t, -static_cast<double>(w.sin_t));
}

}  // namespace cpu_sift_detail

namespace {

using cpu_sift_detail::DescriptorRowSpans;

struct Octave {
  int width = 0, height = 0;
  size_t gaussian_offset = 0;  // into State::gaussian
  size_t dog_offset = 0;       // into State::dog
  size_t plane() const { return static_cast<size_t>(width) * height; }
};

// Rows [row_begin, row_end) of one octave, scanned for extrema in every DoG layer by one thread.
struct ScanTask {
  int octave, row_begin, row_end;
};

// A refined extremum and its octave (pyramid index).
struct Candidate {
  RefinedExtremum extremum;
  int octave;
};

// The per-sample loops below (orientation histogram, descriptor) call the shared per-sample
// functions in the shared order. They are compiled for the SSE2 baseline and for AVX2, whose
// rounding instructions replace the baseline's floorf/rintf sequences; the AVX2 target has no
// FMA, so both clones give the same bits.

// Asks for the pixels of row `row`, columns [c0, c1] of `level`, to be brought into the cache:
// the sample loops walk their windows row by row, and a window's rows are seldom cached yet.
inline void prefetch_row(const FloatImageView& level, int row, int c0, int c1) {
  if (row < 0 || row >= level.height)
    return;
  c0 = std::max(c0, 0);
  c1 = std::min(c1, level.width - 1);
  if (c1 >= c0)
    cpu::prefetch_span(level.data + static_cast<ptrdiff_t>(row) * level.stride + c0, c1 - c0 + 1);
}

// How many rows ahead of the sample loops the prefetches run.
constexpr int kPrefetchRows = 3;

// Orientation histogram of one extremum and its peaks (OpenCV calcOrientationHist).
GPUSIFT_CLONES_AVX2 int dominant_orientations(const FloatImageView& level,
                                              const OrientationWindow& window, float* angles) {
  float raw[kOrientationBins] = {};
  const int c0 = window.col - window.radius - 1, c1 = window.col + window.radius + 1;
  for (int dy = -window.radius - 1; dy < -window.radius - 1 + kPrefetchRows; ++dy)
    prefetch_row(level, window.row + dy, c0, c1);
  for (int dy = -window.radius; dy <= window.radius; ++dy) {
    prefetch_row(level, window.row + dy + kPrefetchRows, c0, c1);
    for (int dx = -window.radius; dx <= window.radius; ++dx) {
      int bin;
      float magnitude;
      if (orientation_sample(level, window, dy, dx, &bin, &magnitude))
        raw[bin] += magnitude;
    }
  }
  float smoothed[kOrientationBins];
  const float maximum = smooth_orientation_histogram(raw, smoothed);
  return orientation_peaks(smoothed, maximum, angles);
}

// The normalised 128 values of one keypoint (OpenCV calcSIFTDescriptor); scale takes base-image
// coordinates into the level's.
GPUSIFT_CLONES_AVX2 void compute_descriptor(const FloatImageView& level, const Keypoint& k,
                                            float scale, float* descriptor) {
  const DescriptorWindow window = descriptor_window(
      k.x * scale, k.y * scale, k.angle, k.size * scale * 0.5f, level.width, level.height);
  float hist[kDescriptorHistLength] = {};
  const int c0 = window.col - window.radius - 1, c1 = window.col + window.radius + 1;
  for (int dy = -window.radius - 1; dy < -window.radius - 1 + kPrefetchRows; ++dy)
    prefetch_row(level, window.row + dy, c0, c1);
  const DescriptorRowSpans spans(window);
  for (int dy = -window.radius; dy <= window.radius; ++dy) {
    prefetch_row(level, window.row + dy + kPrefetchRows, c0, c1);
    int first, last;
    spans.row(dy, &first, &last);
    for (int dx = first; dx <= last; ++dx) {
      DescriptorContribution contribution;
      if (descriptor_sample(level, window, dy, dx, &contribution))
        add_descriptor_contribution(contribution, hist);
    }
  }
  fold_descriptor_histogram(hist, descriptor);
  normalize_descriptor(descriptor);
}

// Rows of an octave scanned per task: small enough to balance the threads on small frames.
constexpr int kScanRowsPerTask = 8;

// Octaves of fewer pixels are built by a single thread: their steps are too short to share.
constexpr size_t kSerialOctavePixels = size_t{1} << 17;

}  // namespace

struct CpuSiftExtractor::State {
  SiftParams params;
  RefineSettings refine{};
  std::vector<cpu::GaussianKernel> level_kernels;  // index = level, [0] blurs the base image
  int frame_width = 0, frame_height = 0;
  std::vector<Octave> octaves;
  std::vector<float> input;     // frame as float
  std::vector<float> enlarged;  // doubled frame, when upscaling
  // Every octave's Gaussian stack but its top level, one after another: the top level only
  // serves the top DoG level and is never stored.
  std::vector<float> gaussian;
  std::vector<float> dog;
  // Per-thread working storage, grown when the OpenMP thread count grows.
  size_t scratch_stride = 0;              // floats of blur scratch per thread
  std::vector<float> scratch;             // blur rows
  std::vector<std::vector<int>> columns;  // extremum candidate columns of one row
  std::vector<std::vector<Candidate>> per_thread_candidates;
  std::vector<std::vector<Keypoint>> per_thread;
  std::vector<ScanTask> scan_tasks;   // octave by octave
  int first_small_octave = 0;         // octaves from here on are built by one thread
  int first_small_task = 0;           // scan tasks from here on are in small octaves
  std::vector<Candidate> candidates;  // refined extrema of the frame, awaiting orientation
  std::vector<Keypoint> keypoints;
  std::vector<std::pair<uint64_t, int>> describe_order;  // (level and row, keypoint index)

  int levels() const { return gaussian_levels(params.n_octave_layers); }
  int stored_levels() const { return levels() - 1; }
  cpu::FloatImage gaussian_level(int o, int level) {
    const Octave& oct = octaves[o];
    return {gaussian.data() + oct.gaussian_offset + level * oct.plane(), oct.width, oct.height,
            oct.width};
  }
  cpu::FloatImage dog_level(int o, int level) {
    const Octave& oct = octaves[o];
    return {dog.data() + oct.dog_offset + level * oct.plane(), oct.width, oct.height, oct.width};
  }
  LayerStackView dog_stack(int o) const {
    const Octave& oct = octaves[o];
    return {dog.data() + oct.dog_offset, oct.width, oct.height, oct.width, oct.plane()};
  }
  FloatImageView gaussian_view(int o, int level) const {
    const Octave& oct = octaves[o];
    return {gaussian.data() + oct.gaussian_offset + level * oct.plane(), oct.width, oct.height,
            oct.width};
  }

  void layout_for(int width, int height);
  void reserve_threads(int threads);
  void build_octave(int o, const cpu::FloatImage& base, float* scratch_row, cpu::Sharing sharing);
  void scan(const ScanTask& task, float threshold, int* cols, std::vector<Candidate>* found) const;
  int orient(const Candidate& candidate, std::vector<Keypoint>* found) const;
  void build_and_detect(const uint8_t* gray, size_t pitch_bytes);
  void describe(Features* out);
};

void CpuSiftExtractor::State::layout_for(int width, int height) {
  if (width == frame_width && height == frame_height)
    return;
  frame_width = frame_height = 0;
  const int scale = params.upscale ? 2 : 1;
  const int base_w = width * scale, base_h = height * scale;
  const int count = built_octaves(base_w, base_h, params.upscale, params.max_octaves);
  octaves.assign(count, Octave{});
  size_t gaussian_total = 0, dog_total = 0;
  for (int o = 0; o < count; ++o) {
    Octave& oct = octaves[o];
    oct.width = o == 0 ? base_w : octaves[o - 1].width / 2;
    oct.height = o == 0 ? base_h : octaves[o - 1].height / 2;
    oct.gaussian_offset = gaussian_total;
    oct.dog_offset = dog_total;
    gaussian_total += oct.plane() * stored_levels();
    dog_total += oct.plane() * dog_levels(params.n_octave_layers);
  }
  // Fresh vectors rather than assign(): a smaller frame gives the larger one's memory back.
  input = std::vector<float>(static_cast<size_t>(width) * height);
  enlarged = std::vector<float>(params.upscale ? static_cast<size_t>(base_w) * base_h : 0);
  gaussian = std::vector<float>(gaussian_total);
  dog = std::vector<float>(dog_total);
  int radius = 0;
  for (const cpu::GaussianKernel& kernel : level_kernels)
    radius = std::max(radius, kernel.radius);
  // Rounded up to a cache line so that threads do not share one.
  scratch_stride = (cpu::blur_scratch_floats(base_w, radius) + 15) / 16 * 16;
  scratch = std::vector<float>();
  columns.clear();
  first_small_octave = count;
  for (int o = 0; o < count; ++o) {
    if (octaves[o].plane() < kSerialOctavePixels) {
      first_small_octave = o;
      break;
    }
  }
  scan_tasks.clear();
  first_small_task = -1;
  for (int o = 0; o < count; ++o) {
    if (o == first_small_octave)
      first_small_task = static_cast<int>(scan_tasks.size());
    const int rows = octaves[o].height, cols = octaves[o].width;
    if (rows <= 2 * kSiftImageBorder || cols <= 2 * kSiftImageBorder)
      continue;
    for (int r = kSiftImageBorder; r < rows - kSiftImageBorder; r += kScanRowsPerTask)
      scan_tasks.push_back({o, r, std::min(r + kScanRowsPerTask, rows - kSiftImageBorder)});
  }
  if (first_small_task < 0)
    first_small_task = static_cast<int>(scan_tasks.size());
  frame_width = width;
  frame_height = height;
}

void CpuSiftExtractor::State::reserve_threads(int threads) {
  const size_t count = static_cast<size_t>(threads);
  if (scratch.size() < count * scratch_stride)
    scratch.resize(count * scratch_stride);
  const size_t column_room = octaves.empty() ? 0 : static_cast<size_t>(octaves[0].width);
  if (columns.size() < count)
    columns.resize(count);
  for (auto& list : columns)
    list.resize(column_room);
  if (per_thread_candidates.size() < count)
    per_thread_candidates.resize(count);
  if (per_thread.size() < count)
    per_thread.resize(count);
}

void CpuSiftExtractor::State::build_octave(int o, const cpu::FloatImage& base, float* scratch_row,
                                           cpu::Sharing sharing) {
  for (int level = 0; level < levels(); ++level) {
    if (o == 0 && level == 0) {
      const cpu::FloatImage dst = gaussian_level(o, level);
      cpu::gaussian_blur(base, &dst, level_kernels[0], nullptr, scratch_row, sharing);
    } else if (level == 0) {
      cpu::decimate_2x(gaussian_level(o - 1, params.n_octave_layers), gaussian_level(o, 0),
                       sharing);
    } else {
      // The DoG level below is this level minus the previous one; the top Gaussian level serves
      // only that and is not kept.
      const cpu::FloatImage difference = dog_level(o, level - 1);
      const cpu::FloatImage dst =
          level < stored_levels() ? gaussian_level(o, level) : cpu::FloatImage{};
      cpu::gaussian_blur(gaussian_level(o, level - 1), dst.data ? &dst : nullptr,
                         level_kernels[level], &difference, scratch_row, sharing);
    }
  }
}

void CpuSiftExtractor::State::scan(const ScanTask& task, float threshold, int* cols,
                                   std::vector<Candidate>* found) const {
  const LayerStackView dog_view = dog_stack(task.octave);
  const int c0 = kSiftImageBorder, c1 = dog_view.width - kSiftImageBorder;
  const int layer_count = dog_levels(params.n_octave_layers);
  for (int r = task.row_begin; r < task.row_end; ++r) {
    // Every DoG layer's row r + 2 is read from the next row on: ask for it now, as the scan
    // below touches the outer layers only where the inner test passes.
    if (r + 2 < dog_view.height) {
      for (int l = 0; l < layer_count; ++l)
        cpu::prefetch_span(dog_view.data + l * dog_view.layer_stride +
                               static_cast<ptrdiff_t>(r + 2) * dog_view.stride,
                           dog_view.width);
    }
    for (int layer = 1; layer <= params.n_octave_layers; ++layer) {
      // A vectorised necessary condition picks the columns, the shared test decides.
      const int n = cpu::extremum_candidates(dog_view.data, dog_view.layer_stride, dog_view.stride,
                                             layer, r, c0, c1, threshold, cols);
      for (int i = 0; i < n; ++i) {
        const int c = cols[i];
        if (!is_scale_space_extremum(dog_view, layer, r, c, threshold))
          continue;
        Candidate candidate;
        candidate.octave = task.octave;
        if (refine_extremum(dog_view, task.octave, layer, r, c, refine, &candidate.extremum))
          found->push_back(candidate);
      }
    }
  }
}

int CpuSiftExtractor::State::orient(const Candidate& candidate,
                                    std::vector<Keypoint>* found) const {
  const RefinedExtremum& extremum = candidate.extremum;
  const int o = candidate.octave;
  const float scale_in_octave =
      extremum.keypoint.size * 0.5f / ldexpf(1.f, o + refine.first_octave);
  const OrientationWindow window = orientation_window(extremum.row, extremum.col, scale_in_octave);
  float angles[kOrientationBins];
  const int peaks = dominant_orientations(gaussian_view(o, extremum.layer), window, angles);
  for (int p = 0; p < peaks; ++p) {
    Keypoint k = extremum.keypoint;
    k.angle = angles[p];
    found->push_back(k);
  }
  return peaks;
}

void CpuSiftExtractor::State::build_and_detect(const uint8_t* gray, size_t pitch_bytes) {
  for (auto& list : per_thread)
    list.clear();
  for (auto& list : per_thread_candidates)
    list.clear();
  candidates.clear();
  const cpu::FloatImage frame{input.data(), frame_width, frame_height, frame_width};
  const cpu::FloatImage base = params.upscale ? cpu::FloatImage{enlarged.data(), frame_width * 2,
                                                                frame_height * 2, frame_width * 2}
                                              : frame;
  const int octave_total = static_cast<int>(octaves.size());
  const float threshold = extremum_prethreshold(params.contrast_threshold, params.n_octave_layers);
  const int task_count = static_cast<int>(scan_tasks.size());
  // One parallel region. The large octaves are built with every thread, one step after the
  // other (each step ends on a barrier). Then one thread builds the small octaves, where
  // barriers would cost more than they share, while the others scan the large ones; the small
  // ones are scanned last. Orientation follows, balanced over all extrema of the frame.
#pragma omp parallel
  {
    const int thread = omp_get_thread_num();
    float* scratch_row = scratch.data() + thread * scratch_stride;
    int* cols = columns[thread].data();
    cpu::gray8_to_float(gray, pitch_bytes, frame, cpu::Sharing::kShared);
    if (params.upscale)
      cpu::upscale_2x(frame, base, cpu::Sharing::kShared);
    for (int o = 0; o < first_small_octave; ++o)
      build_octave(o, base, scratch_row, cpu::Sharing::kShared);
#pragma omp single nowait
    {
      for (int o = first_small_octave; o < octave_total; ++o)
        build_octave(o, base, scratch_row, cpu::Sharing::kSerial);
    }
#pragma omp for schedule(dynamic, 1) nowait
    for (int t = 0; t < first_small_task; ++t)
      scan(scan_tasks[t], threshold, cols, &per_thread_candidates[thread]);
#pragma omp barrier
#pragma omp for schedule(dynamic, 1)
    for (int t = first_small_task; t < task_count; ++t)
      scan(scan_tasks[t], threshold, cols, &per_thread_candidates[thread]);
#pragma omp single
    {
      for (const auto& list : per_thread_candidates)
        candidates.insert(candidates.end(), list.begin(), list.end());
    }
    const int candidate_count = static_cast<int>(candidates.size());
#pragma omp for schedule(dynamic, 4)
    for (int i = 0; i < candidate_count; ++i)
      orient(candidates[i], &per_thread[thread]);
  }
  keypoints.clear();
  for (const auto& list : per_thread)
    keypoints.insert(keypoints.end(), list.begin(), list.end());
}

void CpuSiftExtractor::State::describe(Features* out) {
  const int count = static_cast<int>(out->keypoints.size());
  const DescriptorFormat format = params.descriptor;
  out->descriptor_format = format;
  out->descriptor_size = format == DescriptorFormat::kNone ? 0 : kDescriptorLength;
  if (format == DescriptorFormat::kNone)
    return;
  const size_t values = static_cast<size_t>(count) * kDescriptorLength;
  if (format == DescriptorFormat::kUint8)
    out->byte_descriptors.resize(values);
  else
    out->float_descriptors.resize(values);

  // Visit the keypoints level by level and top to bottom, so that neighbouring windows share
  // cache lines; every descriptor still goes to its keypoint's row.
  describe_order.resize(count);
  for (int i = 0; i < count; ++i) {
    const Keypoint& k = out->keypoints[i];
    const UnpackedOctave packed = unpack_octave(k.octave);
    const uint64_t level = static_cast<uint64_t>((packed.octave + 1) * 256 + packed.layer);
    const uint64_t row = static_cast<uint64_t>(std::max(0.f, k.y * packed.scale));
    describe_order[i] = {level << 48 | (row & 0xffffffffffffu), i};
  }
  std::sort(describe_order.begin(), describe_order.end());

#pragma omp parallel for schedule(dynamic, 8)
  for (int n = 0; n < count; ++n) {
    const int i = describe_order[n].second;
    const Keypoint& k = out->keypoints[i];
    const UnpackedOctave packed = unpack_octave(k.octave);
    const FloatImageView level = gaussian_view(packed.octave - refine.first_octave, packed.layer);
    float descriptor[kDescriptorLength];
    compute_descriptor(level, k, packed.scale, descriptor);
    if (format == DescriptorFormat::kUint8) {
      uint8_t* row = out->byte_descriptors.data() + static_cast<size_t>(i) * kDescriptorLength;
      for (int v = 0; v < kDescriptorLength; ++v)
        row[v] = descriptor_byte(descriptor[v]);
      continue;
    }
    if (format == DescriptorFormat::kRootSift)
      descriptor_to_rootsift(descriptor);
    float* row = out->float_descriptors.data() + static_cast<size_t>(i) * kDescriptorLength;
    for (int v = 0; v < kDescriptorLength; ++v)
      row[v] = descriptor[v];
  }
}

CpuSiftExtractor::CpuSiftExtractor(const SiftParams& params) : state_(new State) {
  validate(params);
  State& s = *state_;
  s.params = params;
  s.refine = RefineSettings{params.n_octave_layers, params.contrast_threshold,
                            params.edge_threshold, params.sigma, params.upscale ? -1 : 0};
  s.level_kernels.push_back(
      cpu::make_gaussian_kernel(initial_blur_sigma(params.sigma, params.upscale)));
  for (int level = 1; level < s.levels(); ++level)
    s.level_kernels.push_back(
        cpu::make_gaussian_kernel(level_blur_sigma(params.sigma, params.n_octave_layers, level)));
}

CpuSiftExtractor::~CpuSiftExtractor() = default;

void CpuSiftExtractor::extract(const uint8_t* gray, size_t pitch_bytes, int width, int height,
                               Features* out) {
  State& s = *state_;
  cpu::extract_frame(
      gray, pitch_bytes, width, height, out,
      [&] {
        s.layout_for(width, height);
        // The application may have raised the OpenMP thread count since the last frame.
        s.reserve_threads(omp_get_max_threads());
        s.build_and_detect(gray, pitch_bytes);
        const KeypointBudget budget{s.params.nfeatures, s.params.distribution, width, height};
        select_detections(&s.keypoints, budget, s.params.max_keypoints, out);
        s.describe(out);
      },
      [&] { s.frame_width = s.frame_height = 0; });
}

Features CpuSiftExtractor::extract(const uint8_t* gray, size_t pitch_bytes, int width, int height) {
  Features out;
  extract(gray, pitch_bytes, width, height, &out);
  return out;
}

const SiftParams& CpuSiftExtractor::params() const {
  return state_->params;
}

size_t CpuSiftExtractor::reserved_bytes() const {
  const State& s = *state_;
  return (s.input.capacity() + s.enlarged.capacity() + s.gaussian.capacity() + s.dog.capacity()) *
         sizeof(float);
}

int cpu_thread_count() {
  return omp_get_max_threads();
}

}  // namespace gpusift
