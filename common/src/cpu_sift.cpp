#include "gpusift/cpu_sift.h"

#include <omp.h>

#include <new>
#include <vector>

#include "cpu_image_ops.h"
#include "gpusift/error.h"
#include "gpusift/frame_check.h"
#include "gpusift/keypoint_selection.h"
#include "gpusift/sift_descriptor.h"
#include "gpusift/sift_extrema.h"
#include "gpusift/sift_orientation.h"
#include "gpusift/sift_scale_space.h"

namespace gpusift {

namespace {

struct Octave {
  int width = 0, height = 0;
  size_t gaussian_offset = 0;  // into State::gaussian
  size_t dog_offset = 0;       // into State::dog
  size_t plane() const { return static_cast<size_t>(width) * height; }
};

}  // namespace

struct CpuSiftExtractor::State {
  SiftParams params;
  RefineSettings refine{};
  std::vector<cpu::GaussianKernel> level_kernels;  // index = level, [0] blurs the base image
  int frame_width = 0, frame_height = 0;
  std::vector<Octave> octaves;
  std::vector<float> input;     // frame as float
  std::vector<float> enlarged;  // doubled frame, when upscaling
  std::vector<float> gaussian;  // every octave's Gaussian stack, one after another
  std::vector<float> dog;
  std::vector<std::vector<Keypoint>> per_thread;
  std::vector<Keypoint> keypoints;

  int levels() const { return gaussian_levels(params.n_octave_layers); }
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
  void build_pyramid(const uint8_t* gray, size_t pitch_bytes);
  void detect();
  void describe(Features* out) const;
};

void CpuSiftExtractor::State::layout_for(int width, int height) {
  if (width == frame_width && height == frame_height)
    return;
  frame_width = frame_height = 0;
  const int scale = params.upscale ? 2 : 1;
  const int base_w = width * scale, base_h = height * scale;
  const int count = octave_count(base_w, base_h, params.upscale);
  octaves.assign(count, Octave{});
  size_t gaussian_total = 0, dog_total = 0;
  for (int o = 0; o < count; ++o) {
    Octave& oct = octaves[o];
    oct.width = o == 0 ? base_w : octaves[o - 1].width / 2;
    oct.height = o == 0 ? base_h : octaves[o - 1].height / 2;
    oct.gaussian_offset = gaussian_total;
    oct.dog_offset = dog_total;
    gaussian_total += oct.plane() * levels();
    dog_total += oct.plane() * dog_levels(params.n_octave_layers);
  }
  // Fresh vectors rather than assign(): a smaller frame gives the larger one's memory back.
  input = std::vector<float>(static_cast<size_t>(width) * height);
  enlarged = std::vector<float>(params.upscale ? static_cast<size_t>(base_w) * base_h : 0);
  gaussian = std::vector<float>(gaussian_total);
  dog = std::vector<float>(dog_total);
  frame_width = width;
  frame_height = height;
}

void CpuSiftExtractor::State::build_pyramid(const uint8_t* gray, size_t pitch_bytes) {
  const cpu::FloatImage frame{input.data(), frame_width, frame_height, frame_width};
  cpu::gray8_to_float(gray, pitch_bytes, frame);
  cpu::FloatImage base = frame;
  if (params.upscale) {
    base = {enlarged.data(), frame_width * 2, frame_height * 2, frame_width * 2};
    cpu::upscale_2x(frame, base);
  }
  for (size_t o = 0; o < octaves.size(); ++o) {
    for (int level = 0; level < levels(); ++level) {
      const cpu::FloatImage dst = gaussian_level(o, level);
      if (o == 0 && level == 0) {
        cpu::gaussian_blur(base, dst, level_kernels[0]);
      } else if (level == 0) {
        cpu::decimate_2x(gaussian_level(o - 1, params.n_octave_layers), dst);
      } else {
        cpu::gaussian_blur(gaussian_level(o, level - 1), dst, level_kernels[level]);
      }
    }
    for (int level = 0; level < dog_levels(params.n_octave_layers); ++level)
      cpu::subtract(gaussian_level(o, level + 1), gaussian_level(o, level), dog_level(o, level));
  }
}

void CpuSiftExtractor::State::detect() {
  // The application may have raised the OpenMP thread count since construction.
  if (per_thread.size() < static_cast<size_t>(omp_get_max_threads()))
    per_thread.resize(omp_get_max_threads());
  for (auto& list : per_thread)
    list.clear();
  const float threshold = extremum_prethreshold(params.contrast_threshold, params.n_octave_layers);
  for (size_t o = 0; o < octaves.size(); ++o) {
    const LayerStackView dog_view = dog_stack(o);
    const int rows = dog_view.height, cols = dog_view.width;
    if (rows <= 2 * kSiftImageBorder || cols <= 2 * kSiftImageBorder)
      continue;
    for (int layer = 1; layer <= params.n_octave_layers; ++layer) {
#pragma omp parallel for schedule(dynamic, 8)
      for (int r = kSiftImageBorder; r < rows - kSiftImageBorder; ++r) {
        std::vector<Keypoint>& found = per_thread[omp_get_thread_num()];
        for (int c = kSiftImageBorder; c < cols - kSiftImageBorder; ++c) {
          if (!is_scale_space_extremum(dog_view, layer, r, c, threshold))
            continue;
          RefinedExtremum extremum;
          if (!refine_extremum(dog_view, static_cast<int>(o), layer, r, c, refine, &extremum))
            continue;
          const float scale_in_octave = extremum.keypoint.size * 0.5f /
                                        ldexpf(1.f, static_cast<int>(o) + refine.first_octave);
          const OrientationWindow window =
              orientation_window(extremum.row, extremum.col, scale_in_octave);
          const FloatImageView level = gaussian_view(o, extremum.layer);
          float raw[kOrientationBins] = {};
          for (int dy = -window.radius; dy <= window.radius; ++dy) {
            for (int dx = -window.radius; dx <= window.radius; ++dx) {
              int bin;
              float magnitude;
              if (orientation_sample(level, window, dy, dx, &bin, &magnitude))
                raw[bin] += magnitude;
            }
          }
          float smoothed[kOrientationBins];
          const float maximum = smooth_orientation_histogram(raw, smoothed);
          float angles[kOrientationBins];
          const int peaks = orientation_peaks(smoothed, maximum, angles);
          for (int p = 0; p < peaks; ++p) {
            Keypoint k = extremum.keypoint;
            k.angle = angles[p];
            found.push_back(k);
          }
        }
      }
    }
  }
  keypoints.clear();
  for (const auto& list : per_thread)
    keypoints.insert(keypoints.end(), list.begin(), list.end());
}

void CpuSiftExtractor::State::describe(Features* out) const {
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

#pragma omp parallel for schedule(dynamic, 16)
  for (int i = 0; i < count; ++i) {
    const Keypoint& k = out->keypoints[i];
    const UnpackedOctave packed = unpack_octave(k.octave);
    const int o = packed.octave - refine.first_octave;
    const FloatImageView level = gaussian_view(o, packed.layer);
    const DescriptorWindow window =
        descriptor_window(k.x * packed.scale, k.y * packed.scale, k.angle,
                          k.size * packed.scale * 0.5f, level.width, level.height);
    float hist[kDescriptorHistLength] = {};
    for (int dy = -window.radius; dy <= window.radius; ++dy) {
      for (int dx = -window.radius; dx <= window.radius; ++dx) {
        DescriptorContribution contribution;
        if (descriptor_sample(level, window, dy, dx, &contribution))
          add_descriptor_contribution(contribution, hist);
      }
    }
    float descriptor[kDescriptorLength];
    fold_descriptor_histogram(hist, descriptor);
    normalize_descriptor(descriptor);
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
  s.per_thread.resize(omp_get_max_threads());
}

CpuSiftExtractor::~CpuSiftExtractor() = default;

void CpuSiftExtractor::extract(const uint8_t* gray, size_t pitch_bytes, int width, int height,
                               Features* out) {
  out->clear();
  check_frame(gray, pitch_bytes, width, height, 1);
  State& s = *state_;
  try {
    s.layout_for(width, height);
    s.build_pyramid(gray, pitch_bytes);
    s.detect();
    sort_and_deduplicate(&s.keypoints);
    if (s.params.nfeatures > 0)
      retain_strongest(&s.keypoints, s.params.nfeatures);
    out->detected_count = static_cast<int>(s.keypoints.size());
    if (s.keypoints.size() > static_cast<size_t>(s.params.max_keypoints)) {
      retain_strongest(&s.keypoints, s.params.max_keypoints);
      out->overflowed = true;
    }
    out->keypoints.assign(s.keypoints.begin(), s.keypoints.end());
    s.describe(out);
  } catch (const std::bad_alloc&) {
    s.frame_width = s.frame_height = 0;
    out->clear();
    throw Error(ErrorCode::kOutOfMemory, "out of host memory for a " + std::to_string(width) + "x" +
                                             std::to_string(height) + " frame");
  }
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
