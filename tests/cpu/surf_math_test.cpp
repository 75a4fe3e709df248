// SPDX-License-Identifier: LGPL-2.1-or-later
// Unit tests of the SURF math headers that the CPU loop and a CUDA port share: box sums, the
// box-filter Hessian, maxima and their interpolation, orientation and descriptor, each against
// a brute-force computation or a synthetic image whose answer is known.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <vector>

#include "gpusift/surf_descriptor.h"
#include "gpusift/surf_extrema.h"
#include "gpusift/surf_hessian.h"
#include "gpusift/surf_integral.h"
#include "gpusift/surf_orientation.h"
#include "gpusift/surf_params.h"

namespace gpusift::testing {
namespace {

// The integral table of a GRAY8 image, every entry raised by `offset` (modulo 2^32): box sums
// must not notice, which is what makes wrapped-around tables of huge frames exact.
struct Table {
  std::vector<uint32_t> values;
  IntegralImageView view;
};

Table make_table(const cv::Mat& gray, uint32_t offset = 0) {
  Table t;
  const int w = gray.cols, h = gray.rows, stride = w + 1;
  t.values.assign(static_cast<size_t>(stride) * (h + 1), 0);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x)
      t.values[(y + 1) * stride + x + 1] = t.values[y * stride + x + 1] +
                                           t.values[(y + 1) * stride + x] -
                                           t.values[y * stride + x] + gray.at<uint8_t>(y, x);
  }
  for (uint32_t& v : t.values)
    v += offset;
  t.view = IntegralImageView{t.values.data(), w, h, stride};
  return t;
}

cv::Mat random_image(int width, int height, int seed) {
  cv::Mat gray(height, width, CV_8U);
  cv::RNG rng(seed);
  rng.fill(gray, cv::RNG::UNIFORM, 0, 256);
  return gray;
}

// Random texture with structure at several scales: noise blurred, stretched to 0..255.
cv::Mat texture_image(int width, int height, int seed) {
  cv::Mat noise(height, width, CV_32F);
  cv::RNG rng(seed);
  rng.fill(noise, cv::RNG::UNIFORM, 0.f, 1.f);
  cv::Mat fine, coarse;
  cv::GaussianBlur(noise, fine, cv::Size(), 1.5);
  cv::GaussianBlur(noise, coarse, cv::Size(), 4);
  cv::Mat sum = fine + 2 * coarse, gray;
  cv::normalize(sum, sum, 0, 255, cv::NORM_MINMAX);
  sum.convertTo(gray, CV_8U);
  return gray;
}

// An image given by a function of the pixel position, rounded to 0..255.
template <typename F>
cv::Mat image_of(int width, int height, F value) {
  cv::Mat gray(height, width, CV_8U);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x)
      gray.at<uint8_t>(y, x) = cv::saturate_cast<uint8_t>(value(static_cast<double>(x), y));
  }
  return gray;
}

double angle_difference(double a, double b) {
  return std::fabs(std::remainder(a - b, 360.0));
}

// ---- integral image --------------------------------------------------------------------------

TEST(SurfBoxSum, MatchesBruteForce) {
  const cv::Mat gray = random_image(61, 47, 1);
  const Table t = make_table(gray);
  cv::RNG rng(2);
  for (int trial = 0; trial < 500; ++trial) {
    const int top = rng.uniform(0, 47), left = rng.uniform(0, 61);
    const int bottom = rng.uniform(top, 48), right = rng.uniform(left, 62);
    const double expected = cv::sum(gray(cv::Range(top, bottom), cv::Range(left, right)))[0];
    ASSERT_EQ(box_sum(t.view, top, left, bottom, right), expected)
        << top << " " << left << " " << bottom << " " << right;
  }
}

TEST(SurfBoxSum, ExactWhenTheTableWrapsAround) {
  const cv::Mat gray = random_image(40, 30, 3);
  const Table plain = make_table(gray);
  for (uint32_t offset : {0xFFFFFF00u, 0x80000000u, 0xFFFFFFFFu}) {
    const Table wrapped = make_table(gray, offset);
    for (int top = 0; top < 30; top += 7) {
      for (int left = 0; left < 40; left += 9) {
        ASSERT_EQ(box_sum(wrapped.view, top, left, 30, 40), box_sum(plain.view, top, left, 30, 40));
      }
    }
  }
}

TEST(SurfBoxSum, AreaSumOfFractionalRectangles) {
  const cv::Mat gray = random_image(30, 20, 4);
  const Table t = make_table(gray);
  cv::RNG rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    const float x0 = rng.uniform(0.f, 29.f), y0 = rng.uniform(0.f, 19.f);
    const float x1 = rng.uniform(x0, 30.f), y1 = rng.uniform(y0, 20.f);
    double expected = 0;
    for (int y = 0; y < 20; ++y) {
      const double cover_y = std::max(0.0, std::min<double>(y + 1, y1) - std::max<double>(y, y0));
      for (int x = 0; x < 30; ++x) {
        const double cover_x = std::max(0.0, std::min<double>(x + 1, x1) - std::max<double>(x, x0));
        expected += cover_x * cover_y * gray.at<uint8_t>(y, x);
      }
    }
    ASSERT_NEAR(area_sum(t.view, x0, y0, x1, y1), expected, 1e-3 * (1 + expected))
        << x0 << " " << y0 << " " << x1 << " " << y1;
  }
  EXPECT_EQ(area_sum(t.view, 0.f, 0.f, 30.f, 20.f), cv::sum(gray)[0]);
  EXPECT_EQ(area_sum(t.view, 3.f, 2.f, 4.f, 3.f), gray.at<uint8_t>(2, 3));
}

// ---- Hessian ---------------------------------------------------------------------------------

TEST(SurfHessian, FilterSizesFollowOpenCv) {
  EXPECT_EQ(surf_filter_size(0, 0), 9);
  EXPECT_EQ(surf_filter_size(0, 4), 33);
  EXPECT_EQ(surf_filter_size(1, 1), 30);
  EXPECT_EQ(surf_filter_size(3, 4), 264);
  EXPECT_EQ(surf_sample_step(2), 4);
}

TEST(SurfHessian, NineByNineFilterIsOpenCvsPattern) {
  const HessianFilter f = hessian_filter(9);
  // Dxx: lobes {0, 2, 3, 7, 1}, {3, 2, 6, 7, -2}, {6, 2, 9, 7, 1}; Dyy is Dxx transposed.
  EXPECT_EQ(std::vector<int>(f.lobe_edges, f.lobe_edges + 4), (std::vector<int>{0, 3, 6, 9}));
  EXPECT_EQ(f.strip[0], 2);
  EXPECT_EQ(f.strip[1], 7);
  EXPECT_FLOAT_EQ(f.lobe_weights[0], 1 / 15.f);
  EXPECT_FLOAT_EQ(f.lobe_weights[1], -2 / 15.f);
  EXPECT_FLOAT_EQ(f.lobe_weights[2], 1 / 15.f);
  // Dxy: {1, 1, 4, 4, 1}, {5, 1, 8, 4, -1}, {1, 5, 4, 8, -1}, {5, 5, 8, 8, 1}.
  EXPECT_EQ(std::vector<int>(f.cross_edges, f.cross_edges + 4), (std::vector<int>{1, 4, 5, 8}));
  const float cross[4] = {1 / 9.f, -1 / 9.f, -1 / 9.f, 1 / 9.f};
  for (int k = 0; k < 4; ++k)
    EXPECT_FLOAT_EQ(f.cross_weights[k], cross[k]);
}

// Every filter the parameters allow is symmetric about its centre, and no box of it can sum to
// 2^32 or more, which keeps the wrapping table exact.
TEST(SurfHessian, EveryAllowedFilterIsSymmetricAndExact) {
  const double pixel_limit = 4294967296.0 / 255.0;
  for (int octave = 0; octave < kSurfMaxOctaves; ++octave) {
    for (int layer = 0; layer < kSurfMaxOctaveLayers + 2; ++layer) {
      const int size = surf_filter_size(octave, layer);
      const HessianFilter f = hessian_filter(size);
      for (int e = 0; e < 4; ++e) {
        ASSERT_EQ(f.lobe_edges[e], size - f.lobe_edges[3 - e]) << size;
        ASSERT_EQ(f.cross_edges[e], size - f.cross_edges[3 - e]) << size;
      }
      ASSERT_EQ(f.strip[0], size - f.strip[1]) << size;
      const double strip = f.strip[1] - f.strip[0];
      for (int k = 0; k < 3; ++k)
        ASSERT_LT((f.lobe_edges[k + 1] - f.lobe_edges[k]) * strip, pixel_limit) << size;
      const double cross = f.cross_edges[1] - f.cross_edges[0];
      ASSERT_LT(cross * cross, pixel_limit) << size;
    }
  }
}

// On a quadratic image f = (a x^2 + 2 b x y + c y^2) / 2 the lobes are means at +-size/3 (Dxx,
// Dyy) and about +-2 size/9 (Dxy) from the centre: Dxx = a (size/3)^2, Dxy = 4 b dx dy for the
// offsets (dx, dy) of the top-left Dxy lobe.
TEST(SurfHessian, ResponsesOfQuadraticImages) {
  const Table xx =
      make_table(image_of(61, 61, [](double x, double) { return 40 + (x - 30) * (x - 30); }));
  const Table xy =
      make_table(image_of(61, 61, [](double x, double y) { return 128 + (x - 30) * (y - 30); }));
  for (int size : {9, 15, 21, 27}) {
    const HessianFilter f = hessian_filter(size);
    const int corner = 30 - (size - 1) / 2;
    const double spacing = size / 3.0;
    const HessianResponse ridge = hessian_response(xx.view, f, corner, corner);
    EXPECT_NEAR(ridge.trace, 2 * spacing * spacing, 1e-3 * spacing * spacing) << size;
    EXPECT_EQ(ridge.det, 0.f) << "Dyy and Dxy vanish on a function of x alone";
    if (size > 21)
      continue;  // x y leaves 0..255 beyond
    const double offset = (f.cross_edges[0] + f.cross_edges[1] - 1) / 2.0 - (size - 1) / 2.0;
    const double dxy = 4 * offset * offset;
    const HessianResponse saddle = hessian_response(xy.view, f, corner, corner);
    EXPECT_NEAR(saddle.det, -kSurfDxyWeightSquared * dxy * dxy,
                1e-3 * kSurfDxyWeightSquared * dxy * dxy)
        << size;
    EXPECT_EQ(saddle.trace, 0.f) << size;
  }
}

// The determinant of an elongated blob barely changes as the blob turns; with OpenCV's weight
// of 0.81 for Dxy^2 it would lose 17 % at 45 degrees.
TEST(SurfHessian, DeterminantIsNearlyRotationInvariant) {
  const int size = 27, centre = 40, corner = centre - (size - 1) / 2;
  std::vector<double> ours, opencv;
  for (double degrees : {0.0, 15.0, 30.0, 45.0, 60.0, 90.0}) {
    const double t = degrees * CV_PI / 180, c = std::cos(t), s = std::sin(t);
    const cv::Mat blob = image_of(81, 81, [&](double x, double y) {
      const double u = (x - centre) * c + (y - centre) * s;
      const double v = -(x - centre) * s + (y - centre) * c;
      return 30 + 200 * std::exp(-(u * u) / (2 * 6.0 * 6.0) - (v * v) / (2 * 3.0 * 3.0));
    });
    const Table table = make_table(blob);
    const HessianFilter f = hessian_filter(size);
    ours.push_back(hessian_response(table.view, f, corner, corner).det);
    // OpenCV's boxes, summed one by one.
    const int dxx_boxes[3][5] = {{0, 2, 3, 7, 1}, {3, 2, 6, 7, -2}, {6, 2, 9, 7, 1}};
    const int dxy_boxes[4][5] = {
        {1, 1, 4, 4, 1}, {5, 1, 8, 4, -1}, {1, 5, 4, 8, -1}, {5, 5, 8, 8, 1}};
    const auto box_of = [size](const int* b, bool transposed) {
      return transposed ? scaled_box(b[1], b[0], b[3], b[2], b[4], 9, size)
                        : scaled_box(b[0], b[1], b[2], b[3], b[4], 9, size);
    };
    double dxx = 0, dyy = 0, dxy = 0;
    for (int k = 0; k < 3; ++k) {
      dxx += weighted_box_sum(table.view, corner, corner, box_of(dxx_boxes[k], false));
      dyy += weighted_box_sum(table.view, corner, corner, box_of(dxx_boxes[k], true));
    }
    for (int k = 0; k < 4; ++k)
      dxy += weighted_box_sum(table.view, corner, corner, box_of(dxy_boxes[k], false));
    opencv.push_back(dxx * dyy - 0.81 * dxy * dxy);
  }
  for (double det : ours)
    EXPECT_NEAR(det, ours[0], 0.02 * ours[0]);
  EXPECT_LT(opencv[3], 0.9 * opencv[0]);
}

// The filter that answers most strongly to a Gaussian blob grows with the blob (about 21 for
// sigma 3.6: the box filters act wider than the sigma 1.2 * size / 9 that SURF assigns them),
// peaks at the blob's centre, and sees a negative Laplacian for a bright blob.
int strongest_size(const IntegralImageView& sum, int centre, float* strongest) {
  int best_size = 0;
  *strongest = 0.f;
  for (int size = 9; size <= 99; size += 6) {
    const int corner = centre - (size - 1) / 2;
    const float det = hessian_response(sum, hessian_filter(size), corner, corner).det;
    if (det > *strongest) {
      *strongest = det;
      best_size = size;
    }
  }
  return best_size;
}

TEST(SurfHessian, BlobPeaksAtItsCentreAndAtAScaleThatFollowsIt) {
  int sizes[2] = {};
  for (int doubled = 0; doubled < 2; ++doubled) {
    const double sigma = doubled ? 7.2 : 3.6;
    for (int brightness : {1, -1}) {
      const cv::Mat blob = image_of(241, 241, [&](double x, double y) {
        const double r2 = (x - 120) * (x - 120) + (y - 120) * (y - 120);
        return 128 + brightness * 100 * std::exp(-r2 / (2 * sigma * sigma));
      });
      const Table t = make_table(blob);
      float strongest;
      const int size = strongest_size(t.view, 120, &strongest);
      sizes[doubled] = size;
      const HessianFilter f = hessian_filter(size);
      const int corner = 120 - (size - 1) / 2;
      EXPECT_EQ(laplacian_sign(hessian_response(t.view, f, corner, corner).trace), -brightness);
      for (int d = 1; d <= 3; ++d) {
        EXPECT_LT(hessian_response(t.view, f, corner + d, corner).det, strongest);
        EXPECT_LT(hessian_response(t.view, f, corner, corner - d).det, strongest);
      }
    }
  }
  EXPECT_EQ(sizes[0], 21);
  EXPECT_NEAR(sizes[1], 2 * sizes[0], kSurfFilterSizeStep) << "scale covariance";
}

// ---- sample grid and maxima ------------------------------------------------------------------

TEST(SurfGrid, SamplesOfAnOctaveShareTheirCentres) {
  for (int octave = 0; octave < 4; ++octave) {
    const SurfLayerGrid first = surf_layer_grid(octave, 0, 700, 500);
    for (int layer = 1; layer < 5; ++layer) {
      const SurfLayerGrid g = surf_layer_grid(octave, layer, 700, 500);
      for (int i : {g.row_begin, g.row_end - 1})
        ASSERT_EQ(g.centre(i), first.centre(i)) << octave << " " << layer;
    }
    const int step = surf_sample_step(octave);
    EXPECT_EQ(first.centre(10), step * 10 + (step - 1) * 0.5f);
  }
}

TEST(SurfGrid, ValidSamplesAreExactlyThoseInsideTheFrame) {
  for (int octave = 0; octave < 3; ++octave) {
    for (int layer = 0; layer < 5; ++layer) {
      const int width = 203, height = 98;
      const SurfLayerGrid g = surf_layer_grid(octave, layer, width, height);
      for (int i = 0; i < height >> octave; ++i) {
        const bool inside = g.top(i) >= 0 && g.top(i) + g.size <= height;
        ASSERT_EQ(inside, i >= g.row_begin && i < g.row_end) << octave << " " << layer << " " << i;
      }
      for (int j = 0; j < width >> octave; ++j) {
        const bool inside = g.left(j) >= 0 && g.left(j) + g.size <= width;
        ASSERT_EQ(inside, j >= g.col_begin && j < g.col_end);
      }
    }
  }
  const SurfLayerGrid too_big = surf_layer_grid(0, 0, 8, 100);
  EXPECT_GE(too_big.col_begin, too_big.col_end);
}

TEST(SurfGrid, SearchRangeLeavesRoomForTheNeighbours) {
  const int width = 150, height = 90;
  for (int octave = 0; octave < 3; ++octave) {
    for (int layer = 1; layer <= 3; ++layer) {
      const SurfLayerGrid below = surf_layer_grid(octave, layer - 1, width, height);
      const SurfLayerGrid here = surf_layer_grid(octave, layer, width, height);
      const SurfLayerGrid above = surf_layer_grid(octave, layer + 1, width, height);
      const SurfSearchRange r = surf_search_range(below, here, above);
      for (const SurfLayerGrid* g : {&below, &here, &above}) {
        EXPECT_GE(r.row_begin - 1, g->row_begin);
        EXPECT_LE(r.row_end + 1, g->row_end);
        EXPECT_GE(r.col_begin - 1, g->col_begin);
        EXPECT_LE(r.col_end + 1, g->col_end);
      }
      if (!r.empty()) {
        EXPECT_EQ(r.row_begin - 1, above.row_begin) << "the largest filter decides";
        EXPECT_EQ(r.row_end + 1, above.row_end) << "the largest filter decides";
      }
    }
  }
}

// Three layers sampled from a quadratic in (x, y, s) with its maximum at `peak`.
struct QuadraticStack {
  std::vector<float> values;
  DeterminantStack stack;
  QuadraticStack(double px, double py, double ps) : values(3 * 5 * 5) {
    for (int s = 0; s < 3; ++s) {
      for (int y = 0; y < 5; ++y) {
        for (int x = 0; x < 5; ++x) {
          const double dx = x - 2 - px, dy = y - 2 - py, ds = s - 1 - ps;
          values[(s * 5 + y) * 5 + x] = static_cast<float>(
              1000 - 30 * dx * dx - 50 * dy * dy - 20 * ds * ds + 10 * dx * dy - 5 * dy * ds);
        }
      }
    }
    stack = {FloatImageView{values.data(), 5, 5, 5}, FloatImageView{values.data() + 25, 5, 5, 5},
             FloatImageView{values.data() + 50, 5, 5, 5}};
  }
};

TEST(SurfExtrema, InterpolationFindsTheQuadraticsPeak) {
  const QuadraticStack q(0.3, -0.2, 0.4);
  ASSERT_TRUE(is_determinant_maximum(q.stack, 2, 2, 100.f));
  SurfOffset offset;
  ASSERT_TRUE(interpolate_maximum(q.stack, 2, 2, &offset));
  EXPECT_NEAR(offset.x, 0.3, 1e-4);
  EXPECT_NEAR(offset.y, -0.2, 1e-4);
  EXPECT_NEAR(offset.s, 0.4, 1e-4);
}

TEST(SurfExtrema, MaximumTestIsStrictAndThresholded) {
  const QuadraticStack q(0.1, 0.1, 0.1);
  EXPECT_TRUE(is_determinant_maximum(q.stack, 2, 2, 100.f));
  EXPECT_FALSE(is_determinant_maximum(q.stack, 2, 2, 2000.f));
  EXPECT_FALSE(is_determinant_maximum(q.stack, 2, 1, 100.f));
  QuadraticStack tie(0.1, 0.1, 0.1);
  tie.values[2 * 25 + 3 * 5 + 3] = tie.values[25 + 2 * 5 + 2];
  EXPECT_FALSE(is_determinant_maximum(tie.stack, 2, 2, 100.f));
}

TEST(SurfExtrema, InterpolationRejectsFarOrFlatPeaks) {
  SurfOffset offset;
  const QuadraticStack far(1.4, 0, 0);
  EXPECT_FALSE(interpolate_maximum(far.stack, 2, 2, &offset));
  const QuadraticStack centred(0, 0, 0);
  EXPECT_FALSE(interpolate_maximum(centred.stack, 2, 2, &offset)) << "OpenCV rejects a zero step";
  std::vector<float> flat(75, 500.f);
  const DeterminantStack plane{FloatImageView{flat.data(), 5, 5, 5},
                               FloatImageView{flat.data() + 25, 5, 5, 5},
                               FloatImageView{flat.data() + 50, 5, 5, 5}};
  EXPECT_FALSE(interpolate_maximum(plane, 2, 2, &offset));
}

TEST(SurfExtrema, KeypointFollowsOpenCvsConventions) {
  const SurfLayerGrid g = surf_layer_grid(1, 2, 300, 200);  // size 42, step 2
  ASSERT_EQ(g.size, 42);
  const Keypoint k = surf_keypoint(g, 1, 30, 40, SurfOffset{0.25f, -0.5f, 0.6f}, 1234.f, -3.f);
  EXPECT_FLOAT_EQ(k.x, 2 * 40 + 0.5f + 0.5f);
  EXPECT_FLOAT_EQ(k.y, 2 * 30 + 0.5f - 1.f);
  EXPECT_EQ(k.size, 49.f) << "round(42 + 0.6 * 12)";
  EXPECT_EQ(k.response, 1234.f);
  EXPECT_EQ(k.octave, 1);
  EXPECT_EQ(k.class_id, -1);
  EXPECT_EQ(k.angle, -1.f);
}

// ---- orientation -----------------------------------------------------------------------------

Keypoint keypoint_at(float x, float y, float size, float angle = 0.f) {
  return Keypoint{x, y, size, angle, 0.f, 0, 0};
}

float orientation_of(const IntegralImageView& sum, const Keypoint& k) {
  SurfOrientationWindow w{};
  if (!surf_orientation_window(k, sum.width, sum.height, &w)) {
    ADD_FAILURE() << "wavelet larger than the frame";
    return -1.f;
  }
  SurfDegreeBins bins;
  clear_degree_bins(&bins);
  for (int c = 0; c < kSurfOrientationCandidates; ++c) {
    SurfOrientationSample s;
    if (surf_orientation_sample(sum, w, c, surf_orientation_weight(c), &s))
      add_to_degree_bins(s, &bins);
  }
  return dominant_orientation(bins);
}

// The angle is the direction of increasing intensity, degrees from x towards y (down).
TEST(SurfOrientation, RampPointsUphill) {
  for (double degrees : {0.0, 30.0, 100.0, 200.0, 315.0}) {
    const double t = degrees * CV_PI / 180;
    const Table ramp = make_table(image_of(120, 120, [&](double x, double y) {
      return 128 + 1.5 * ((x - 60) * std::cos(t) + (y - 60) * std::sin(t));
    }));
    const float angle = orientation_of(ramp.view, keypoint_at(60, 60, 20));
    EXPECT_LT(angle_difference(angle, degrees), 1.5) << degrees << " gave " << angle;
    EXPECT_GE(angle, 0.f);
    EXPECT_LT(angle, 360.f);
  }
}

SurfDegreeGroupSums group_sums(const SurfDegreeBins& bins) {
  SurfDegreeGroupSums groups;
  for (int g = 0; g < kSurfDegreeGroups; ++g)
    groups.group[g] = degree_group_sum(bins, g);
  return groups;
}

// Each window adds exactly the degrees less than 30 from its centre, each once, as OpenCV's test
// |round(angle) - centre| < 30 (modulo 360) selects them.
TEST(SurfOrientation, WindowsCoverTheirFiftyNineDegrees) {
  for (int degree = 0; degree < kSurfOrientationDegrees; ++degree) {
    SurfDegreeBins bins;
    clear_degree_bins(&bins);
    add_to_degree_bins(SurfOrientationSample{1.f, 0.f, degree}, &bins);
    const SurfDegreeGroupSums groups = group_sums(bins);
    for (int w = 0; w < kSurfOrientationWindows; ++w) {
      const int d = std::abs(degree - w * kSurfOrientationSearchStep);
      const bool covered = d < 30 || d > 360 - 30;
      ASSERT_EQ(orientation_window_sum(bins, groups, w).x, covered ? 1.f : 0.f)
          << "degree " << degree << " window " << w;
    }
  }
}

TEST(SurfOrientation, WindowsAndBins) {
  SurfDegreeBins bins;
  clear_degree_bins(&bins);
  EXPECT_EQ(dominant_orientation(bins), 0.f) << "no gradient: angle +0";
  EXPECT_FALSE(std::signbit(dominant_orientation(bins)));
  // Samples at 0 and 50 degrees share only the window centred on 25; together they outweigh a
  // stronger one at 270 degrees.
  const float c50 = std::cos(50 * static_cast<float>(CV_PI) / 180);
  const float s50 = std::sin(50 * static_cast<float>(CV_PI) / 180);
  add_to_degree_bins(SurfOrientationSample{1.f, 0.f, 0}, &bins);
  add_to_degree_bins(SurfOrientationSample{c50, s50, 50}, &bins);
  add_to_degree_bins(SurfOrientationSample{0.f, -1.5f, 270}, &bins);
  const SurfDegreeGroupSums groups = group_sums(bins);
  const SurfWindowSum pair = orientation_window_sum(bins, groups, 25 / kSurfOrientationSearchStep);
  EXPECT_EQ(pair.x, 1.f + c50);
  EXPECT_EQ(pair.y, s50);
  EXPECT_EQ(orientation_window_sum(bins, groups, 30 / kSurfOrientationSearchStep).x, c50);
  EXPECT_EQ(orientation_window_sum(bins, groups, 355 / kSurfOrientationSearchStep).x, 1.f);
  // The pair points 25 degrees up (y up); keypoint angles count with y down.
  EXPECT_NEAR(dominant_orientation(bins), 360 - 25, 1e-3);
}

TEST(SurfOrientation, WeightsAreOpenCvsGaussianUpToScale) {
  const cv::Mat g = cv::getGaussianKernel(kSurfOrientationSide, kSurfOrientationSigma, CV_64F);
  const double scale = surf_orientation_weight(0) / (g.at<double>(0) * g.at<double>(0));
  for (int k = 0; k < kSurfOrientationCandidates; ++k) {
    const double expected =
        g.at<double>(k / kSurfOrientationSide) * g.at<double>(k % kSurfOrientationSide) * scale;
    ASSERT_NEAR(surf_orientation_weight(k), expected, 1e-6 * expected + 1e-9) << k;
  }
  int on_disc = 0;
  for (int k = 0; k < kSurfOrientationCandidates; ++k) {
    const int dx = k / kSurfOrientationSide - 6, dy = k % kSurfOrientationSide - 6;
    on_disc += dx * dx + dy * dy <= 36;
  }
  EXPECT_EQ(on_disc, 113);
}

TEST(SurfOrientation, KeypointsWhoseWaveletExceedsTheFrameAreDropped) {
  const Table t = make_table(random_image(40, 30, 6));
  SurfOrientationWindow w;
  EXPECT_TRUE(surf_orientation_window(keypoint_at(20, 15, 50), 40, 30, &w));
  EXPECT_EQ(w.wavelet, 2 * cvRound(2 * 50 * 1.2 / 9));
  EXPECT_FALSE(surf_orientation_window(keypoint_at(20, 15, 120), 40, 30, &w));
}

// ---- descriptor ------------------------------------------------------------------------------

std::vector<float> descriptor_of(const IntegralImageView& sum, const Keypoint& k, bool extended) {
  const SurfDescriptorWindow w = surf_descriptor_window(k, sum.width, sum.height);
  float nodes[kSurfNodeCount];
  for (int n = 0; n < kSurfNodeCount; ++n)
    nodes[n] = surf_node(sum, w, n / kSurfNodesPerSide, n % kSurfNodesPerSide);
  const int values = surf_cell_values(extended);
  std::vector<float> d(kSurfCellCount * values, 0.f);
  for (int i = 0; i < kSurfSamplesPerSide; ++i) {
    for (int j = 0; j < kSurfSamplesPerSide; ++j)
      add_surf_response(surf_response(nodes, i, j, surf_descriptor_weight(i, j)), extended,
                        d.data() + surf_cell_of(i, j) * values);
  }
  normalize_surf_descriptor(d.data(), static_cast<int>(d.size()));
  return d;
}

double l2(const std::vector<float>& v) {
  double s = 0;
  for (float x : v)
    s += static_cast<double>(x) * x;
  return std::sqrt(s);
}

double distance(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i)
    s += (a[i] - b[i]) * static_cast<double>(a[i] - b[i]);
  return std::sqrt(s);
}

TEST(SurfDescriptor, UnitLengthAndZeroOnFlatImages) {
  const Table texture = make_table(texture_image(200, 200, 7));
  for (bool extended : {false, true}) {
    for (float angle : {0.f, 37.f, 270.f}) {
      const std::vector<float> d =
          descriptor_of(texture.view, keypoint_at(100, 100, 30, angle), extended);
      ASSERT_EQ(d.size(), extended ? 128u : 64u);
      EXPECT_NEAR(l2(d), 1.0, 1e-5);
    }
  }
  const Table flat = make_table(cv::Mat(100, 100, CV_8U, cv::Scalar(77)));
  for (float v : descriptor_of(flat.view, keypoint_at(50, 50, 20), false))
    ASSERT_EQ(v, 0.f);
}

// Node (i, j) is the mean of its s x s square, which on a ramp is the ramp at the square's
// centre: the window is centred on the keypoint, spaced s, turned by the angle.
TEST(SurfDescriptor, NodesSampleTheTurnedGrid) {
  // x + y is linear within a pixel's row and column only up to the pixel steps, so a node's
  // mean can miss the line by 1/8 of a pixel step per axis, over s.
  const Table ramp = make_table(image_of(128, 128, [](double x, double y) { return x + y; }));
  const float x = 63.3f, y = 64.6f, size = 25.f, s = size * 1.2f / 9.f;
  for (float angle : {0.f, 90.f, 33.f}) {
    const SurfDescriptorWindow w = surf_descriptor_window(keypoint_at(x, y, size, angle), 128, 128);
    const float t = angle * static_cast<float>(CV_PI) / 180.f;
    for (int i : {0, 7, 10, 20}) {
      for (int j : {0, 10, 13, 20}) {
        // Columns run along the angle, rows 90 degrees clockwise from it (y is down).
        const float px = x + s * ((j - 10) * std::cos(t) - (i - 10) * std::sin(t));
        const float py = y + s * ((j - 10) * std::sin(t) + (i - 10) * std::cos(t));
        EXPECT_NEAR(surf_node(ramp.view, w, i, j), px + py, 0.25 / s)
            << angle << " " << i << " " << j;
      }
    }
  }
}

// Turning the image by a multiple of 90 degrees maps the window's squares onto squares, so the
// descriptor of the turned keypoint is the same.
TEST(SurfDescriptor, FollowsTheKeypointAngle) {
  const cv::Mat gray = texture_image(161, 121, 8);
  const Table original = make_table(gray);
  const float x = 80.f, y = 60.f;
  for (float angle : {0.f, 10.f, 123.f}) {
    for (bool extended : {false, true}) {
      const std::vector<float> reference =
          descriptor_of(original.view, keypoint_at(x, y, 27, angle), extended);
      cv::Mat turned;
      cv::rotate(gray, turned, cv::ROTATE_90_CLOCKWISE);  // (x, y) -> (rows - 1 - y, x)
      const Table t90 = make_table(turned);
      const Keypoint k90 = keypoint_at(gray.rows - 1 - y, x, 27, std::fmod(angle + 90.f, 360.f));
      EXPECT_LT(distance(reference, descriptor_of(t90.view, k90, extended)), 1e-4) << angle;
      cv::rotate(gray, turned, cv::ROTATE_180);
      const Table t180 = make_table(turned);
      const Keypoint k180 =
          keypoint_at(gray.cols - 1 - x, gray.rows - 1 - y, 27, std::fmod(angle + 180.f, 360.f));
      EXPECT_LT(distance(reference, descriptor_of(t180.view, k180, extended)), 1e-4) << angle;
      const std::vector<float> other =
          descriptor_of(original.view, keypoint_at(x, y, 27, angle + 45.f), extended);
      EXPECT_GT(distance(reference, other), 0.1) << "another angle describes another patch";
    }
  }
}

TEST(SurfDescriptor, CellValuesFollowOpenCv) {
  float cell[8] = {};
  add_surf_response(SurfResponse{2.f, -3.f}, false, cell);
  add_surf_response(SurfResponse{-1.f, 1.f}, false, cell);
  EXPECT_EQ(cell[0], 1.f);   // sum dx
  EXPECT_EQ(cell[1], -2.f);  // sum dy
  EXPECT_EQ(cell[2], 3.f);   // sum |dx|
  EXPECT_EQ(cell[3], 4.f);   // sum |dy|
  float wide[8] = {};
  add_surf_response(SurfResponse{2.f, -3.f}, true, wide);
  add_surf_response(SurfResponse{-1.f, 1.f}, true, wide);
  // dx split by the sign of dy, then dy split by the sign of dx.
  const float expected[8] = {-1.f, 1.f, 2.f, 2.f, -3.f, 3.f, 1.f, 1.f};
  for (int v = 0; v < 8; ++v)
    EXPECT_EQ(wide[v], expected[v]) << v;
  EXPECT_EQ(surf_cell_of(0, 0), 0);
  EXPECT_EQ(surf_cell_of(4, 5), 1);
  EXPECT_EQ(surf_cell_of(19, 14), 14);
}

// OpenCV 4's getGaussianKernel departs from the Gaussian at the two centre taps of even sizes;
// the weights follow the Gaussian that SURF asks for.
TEST(SurfDescriptor, WeightsAreAGaussianOfSigma3Point3) {
  const double scale = surf_descriptor_weight(9, 9) / std::exp(-0.25 / (3.3 * 3.3));
  for (int i = 0; i < kSurfSamplesPerSide; ++i) {
    for (int j = 0; j < kSurfSamplesPerSide; ++j) {
      const double r2 = (i - 9.5) * (i - 9.5) + (j - 9.5) * (j - 9.5);
      const double expected = std::exp(-r2 / (2 * 3.3 * 3.3)) * scale;
      ASSERT_NEAR(surf_descriptor_weight(i, j), expected, 1e-6 * expected) << i << " " << j;
    }
  }
}

}  // namespace
}  // namespace gpusift::testing
