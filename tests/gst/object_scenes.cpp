// SPDX-License-Identifier: LGPL-2.1-or-later
#include "object_scenes.h"

#include <glib/gstdio.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>
#include <random>

#include "frame_factory.h"
#include "gpusift/cpu_sift.h"
#include "gpusift/cpu_surf.h"
#include "gpusift/features_file_writer.h"
#include "test_images.h"

namespace gpusift::testing {

namespace {

// The cat's face: eyes, nose and fur.
const cv::Rect kReferenceRect(100, 50, 260, 220);

cv::Mat as_bgr(const cv::Mat& image) {
  if (image.empty() || image.channels() == 3)
    return image;
  cv::Mat bgr;
  cv::cvtColor(image, bgr, cv::COLOR_GRAY2BGR);
  return bgr;
}

// The image scaled to cover the frame, cropped at its centre.
cv::Mat background(const std::string& name) {
  const cv::Mat image = as_bgr(load_bgr(name));
  if (image.empty())
    return cv::Mat();
  const double scale = std::max(static_cast<double>(kSceneSize.width) / image.cols,
                                static_cast<double>(kSceneSize.height) / image.rows);
  cv::Mat scaled;
  cv::resize(image, scaled, cv::Size(), scale, scale, cv::INTER_LINEAR);
  const cv::Rect centre((scaled.cols - kSceneSize.width) / 2, (scaled.rows - kSceneSize.height) / 2,
                        kSceneSize.width, kSceneSize.height);
  return scaled(centre).clone();
}

cv::Matx33d translation(double dx, double dy) {
  return cv::Matx33d(1, 0, dx, 0, 1, dy, 0, 0, 1);
}

// Rotation and scale about the origin.
cv::Matx33d rotation(double degrees, double scale) {
  const double a = degrees * CV_PI / 180.0;
  const double c = std::cos(a) * scale, s = std::sin(a) * scale;
  return cv::Matx33d(c, -s, 0, s, c, 0, 0, 0, 1);
}

// The reference's centre to `centre`, turned and scaled, tilted by the perspective terms (per
// pixel from the reference's centre).
cv::Matx33d placement(cv::Size reference, cv::Point2d centre, double degrees, double scale,
                      double px, double py) {
  const cv::Matx33d tilt(1, 0, 0, 0, 1, 0, px, py, 1);
  return translation(centre.x, centre.y) * rotation(degrees, scale) * tilt *
         translation(-(reference.width - 1) / 2.0, -(reference.height - 1) / 2.0);
}

cv::Point2d apply(const cv::Matx33d& h, double x, double y) {
  const cv::Vec3d p = h * cv::Vec3d(x, y, 1.0);
  return cv::Point2d(p[0] / p[2], p[1] / p[2]);
}

std::vector<cv::Point2d> reference_corners(cv::Size reference) {
  const double right = reference.width - 1.0, bottom = reference.height - 1.0;
  return {{0.0, 0.0}, {right, 0.0}, {right, bottom}, {0.0, bottom}};
}

bool inside_frame(const cv::Matx33d& h, cv::Size reference) {
  for (const cv::Point2d& corner : reference_corners(reference)) {
    const cv::Point2d p = apply(h, corner.x, corner.y);
    if (p.x < 0 || p.y < 0 || p.x > kSceneSize.width - 1 || p.y > kSceneSize.height - 1)
      return false;
  }
  return true;
}

struct Placement {
  const char* background;
  double degrees;
  double scale;
  double px;
  double py;
};

// chelsea.png with the reference's part grey: the rest of the cat and the room.
cv::Mat chelsea_without_reference() {
  cv::Mat chelsea = load_bgr("chelsea.png").clone();
  if (!chelsea.empty())
    chelsea(kReferenceRect).setTo(cv::Scalar(128, 128, 128));
  return chelsea;
}

}  // namespace

cv::Mat object_reference_bgr() {
  const cv::Mat chelsea = load_bgr("chelsea.png");
  return chelsea.empty() ? cv::Mat() : chelsea(kReferenceRect).clone();
}

std::vector<ObjectScene> positive_scenes() {
  static const Placement placements[] = {
      {"astronaut.png", 0.0, 1.0, 0.0, 0.0},
      {"brick.png", 20.0, 0.9, 0.0, 0.0},
      {"grass.png", -35.0, 1.2, 0.0, 0.0},
      {"gravel.png", 60.0, 0.8, 0.0, 0.0},
      {"camera.png", 90.0, 1.0, 0.0, 0.0},
      {"astronaut.png", 180.0, 0.7, 0.0, 0.0},
      {"brick.png", -150.0, 0.6, 0.0, 0.0},
      {"grass.png", 5.0, 1.4, 0.0, 0.0},
      {"gravel.png", 10.0, 1.0, 0.0012, 0.0},
      {"camera.png", -15.0, 1.1, 0.0, -0.0012},
      {"astronaut.png", 30.0, 0.9, 0.0008, 0.0008},
      {"brick.png", -120.0, 1.0, -0.001, 0.0005},
      {"grass.png", 0.0, 0.5, 0.0, 0.0},
      {"gravel.png", 45.0, 0.45, 0.0, 0.0},
      {"astronaut.png", 0.0, 1.0, 0.0018, 0.0},
      {"brick.png", 0.0, 1.0, 0.0, 0.002},
      {"grass.png", 135.0, 0.8, 0.0015, 0.0015},
      {"gravel.png", 0.0, 1.6, 0.0, 0.0},
      {"camera.png", 0.0, 0.9, 0.0025, 0.0},
  };
  const cv::Mat reference = object_reference_bgr();
  std::vector<ObjectScene> scenes;
  if (reference.empty())
    return scenes;
  const cv::Point2d centre(kSceneSize.width / 2.0 + 13.0, kSceneSize.height / 2.0 - 7.0);
  for (const Placement& p : placements) {
    ObjectScene scene;
    scene.name = std::string(p.background) + " " + std::to_string(static_cast<int>(p.degrees)) +
                 " deg x" + std::to_string(p.scale).substr(0, 4) +
                 (p.px != 0.0 || p.py != 0.0 ? " perspective" : "");
    scene.bgr = background(p.background);
    scene.homography = placement(reference.size(), centre, p.degrees, p.scale, p.px, p.py);
    scene.has_object = true;
    if (scene.bgr.empty() || !inside_frame(scene.homography, reference.size()))
      return {};  // the caller sees no scenes and fails
    cv::warpPerspective(reference, scene.bgr, scene.homography, kSceneSize, cv::INTER_LINEAR,
                        cv::BORDER_TRANSPARENT);
    scenes.push_back(scene);
  }
  return scenes;
}

std::vector<ObjectScene> negative_scenes(int count) {
  const std::vector<std::string> names = {"astronaut.png", "brick.png", "grass.png",  "gravel.png",
                                          "camera.png",    "coins.png", "chelsea.png"};
  std::vector<cv::Mat> sources;
  for (const std::string& name : names) {
    sources.push_back(name == "chelsea.png" ? chelsea_without_reference() : as_bgr(load_bgr(name)));
    if (sources.back().empty())
      return {};
  }
  std::mt19937 random(2024);
  std::uniform_real_distribution<double> angle(0.0, 360.0), scale(0.8, 1.6), unit(0.0, 1.0);
  std::vector<ObjectScene> scenes;
  for (int i = 0; i < count; ++i) {
    const size_t index = static_cast<size_t>(i) % sources.size();
    const cv::Mat& source = sources[index];
    const cv::Point2d from(unit(random) * (source.cols - 1), unit(random) * (source.rows - 1));
    const double degrees = angle(random), zoom = scale(random);
    ObjectScene scene;
    scene.name = names[index] + " #" + std::to_string(i);
    const cv::Matx33d h = translation(kSceneSize.width / 2.0, kSceneSize.height / 2.0) *
                          rotation(degrees, zoom) * translation(-from.x, -from.y);
    cv::warpPerspective(source, scene.bgr, h, kSceneSize, cv::INTER_LINEAR, cv::BORDER_REFLECT);
    scenes.push_back(scene);
  }
  return scenes;
}

double object_corner_error(const GstKeypointsObjectMeta* meta, const cv::Matx33d& truth,
                           cv::Size reference) {
  double worst = 0.0;
  const std::vector<cv::Point2d> corners = reference_corners(reference);
  for (size_t i = 0; i < corners.size(); ++i) {
    const cv::Point2d expected = apply(truth, corners[i].x, corners[i].y);
    worst = std::max(worst, std::hypot(meta->corners[2 * i] - expected.x,
                                       meta->corners[2 * i + 1] - expected.y));
  }
  return worst;
}

bool write_png(const cv::Mat& bgr, const std::string& path) {
  GstCaps* caps =
      gst_caps_from_string(caps_string(GST_VIDEO_FORMAT_BGR, bgr.cols, bgr.rows).c_str());
  GstBuffer* buffer = make_frame(bgr, GST_VIDEO_FORMAT_BGR);
  GstSample* sample = gst_sample_new(buffer, caps, nullptr, nullptr);
  gst_buffer_unref(buffer);
  gst_caps_unref(caps);
  GstCaps* png_caps = gst_caps_new_empty_simple("image/png");
  GstSample* png = gst_video_convert_sample(sample, png_caps, 10 * GST_SECOND, nullptr);
  gst_caps_unref(png_caps);
  gst_sample_unref(sample);
  if (!png)
    return false;
  GstMapInfo map;
  GstBuffer* bytes = gst_sample_get_buffer(png);
  bool ok = false;
  if (gst_buffer_map(bytes, &map, GST_MAP_READ)) {
    ok = g_file_set_contents(path.c_str(), reinterpret_cast<const gchar*>(map.data),
                             static_cast<gssize>(map.size), nullptr);
    gst_buffer_unmap(bytes, &map);
  }
  gst_sample_unref(png);
  return ok;
}

ScratchDir::ScratchDir() {
  gchar* made = g_dir_make_tmp("gpusift-objects-XXXXXX", nullptr);
  path_ = made ? made : "";
  g_free(made);
}

ScratchDir::~ScratchDir() {
  if (path_.empty())
    return;
  if (GDir* dir = g_dir_open(path_.c_str(), 0, nullptr)) {
    while (const gchar* name = g_dir_read_name(dir)) {
      const std::string file = path_ + "/" + name;
      if (g_rmdir(file.c_str()) != 0)
        g_remove(file.c_str());
    }
    g_dir_close(dir);
  }
  g_rmdir(path_.c_str());
}

namespace {

void write_features(const Features& features, Method method, cv::Size size,
                    const std::string& path) {
  FeaturesFileWriter writer(path);
  writer.write_frame(features, method, size.width, size.height, kFeaturesNoPts);
  writer.close();
}

}  // namespace

const ReferenceFiles& ReferenceFiles::get() {
  static const ReferenceFiles files;
  return files;
}

ReferenceFiles::ReferenceFiles() {
  const cv::Mat reference = object_reference_bgr();
  if (reference.empty())
    return;
  size_ = reference.size();
  png_ = dir_.file("reference.png");
  if (!write_png(reference, png_))
    ADD_FAILURE() << "cannot write " << png_;
  // As gpusiftfilter's defaults make them from the gray the element sees.
  const cv::Mat gray = gray_seen_by_element(reference);
  const SiftParams sift = video_sift_params();
  sift_features_ = dir_.file("reference-sift.gpsf");
  write_features(CpuSiftExtractor(sift).extract(gray.data, gray.step, gray.cols, gray.rows),
                 Method::kSift, size_, sift_features_);
  Features surf;
  CpuSurfExtractor(SurfParams{}).extract(gray.data, gray.step, gray.cols, gray.rows, &surf);
  surf_features_ = dir_.file("reference-surf.gpsf");
  write_features(surf, Method::kSurf, size_, surf_features_);
}

}  // namespace gpusift::testing
