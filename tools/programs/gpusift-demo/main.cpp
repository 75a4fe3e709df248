// SPDX-License-Identifier: LGPL-2.1-or-later
// gpusift-demo, the main job: a real image filmed by a synthetic camera (known motion) goes
// through gpusiftfilter, keypointtracker and keypointoverlay into an MP4 and a PNG; the
// tracker's cumulative motion of every frame is scored against the true camera motion.
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/keypoints/gstkeypointsmeta.h>
#include <gst/keypoints/gstkeypointstracksmeta.h>
#include <gst/video/video.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <opencv2/imgproc.hpp>
#include <string>
#include <thread>
#include <vector>

#include "camera_motion.h"
#include "gst_image_io.h"
#include "pipeline_launch.h"

namespace gpusift::demo {
namespace {

struct Options {
  std::string image = GPUSIFT_DEMO_DEFAULT_IMAGE;
  std::string mp4 = "gpusift-demo.mp4";
  std::string png = "gpusift-demo.png";
  std::string backend = "auto";
  int frames = 90;
  cv::Size size{1280, 720};
  double stall_seconds = 60;  // no frame for this long ends the run with an error
};

struct Run {
  Options options;
  std::vector<cv::Matx33d> homographies;  // source image -> frame i
  long keypoint_total = 0, match_total = 0, inlier_total = 0;
  double last_error = 0.0, worst_error = 0.0;  // corner error of the cumulative motion, px
  int frames_seen = 0;
  std::atomic<int> frames_out{0};
  std::atomic<bool> stop_pushing{false};  // progress, read by the bus loop while the probe counts
  guint64 processing_us_total = 0;
  int processing_samples = 0;
  guint64 tracking_us_total = 0;
  int tracking_samples = 0;
};

void save_png(GstBuffer* buffer, GstPad* pad, const std::string& path) {
  GstCaps* caps = gst_pad_get_current_caps(pad);
  if (!write_png(buffer, caps, path))
    std::fprintf(stderr, "gpusift-demo: cannot write %s\n", path.c_str());
  gst_caps_unref(caps);
}

// The median distance between where the estimated and the true motion put the frame's corners.
double median_corner_error(const cv::Matx33d& estimated, const cv::Matx33d& truth, cv::Size size) {
  std::vector<double> errors;
  const double w = size.width - 1.0, h = size.height - 1.0;
  for (const cv::Vec3d& corner :
       {cv::Vec3d(0, 0, 1), cv::Vec3d(w, 0, 1), cv::Vec3d(0, h, 1), cv::Vec3d(w, h, 1)}) {
    const cv::Vec3d a = estimated * corner, b = truth * corner;
    errors.push_back(std::hypot(a[0] / a[2] - b[0] / b[2], a[1] / a[2] - b[1] / b[2]));
  }
  std::sort(errors.begin(), errors.end());
  return (errors[1] + errors[2]) / 2.0;
}

GstPadProbeReturn on_overlaid_frame(GstPad* pad, GstPadProbeInfo* info, gpointer data) {
  Run& run = *static_cast<Run*>(data);
  ++run.frames_out;
  GstBuffer* buffer = GST_PAD_PROBE_INFO_BUFFER(info);
  const GstKeypointsMeta* meta = gst_buffer_get_keypoints_meta(buffer);
  const GstKeypointsTracksMeta* tracks = gst_buffer_get_keypoints_tracks_meta(buffer);
  const int index = static_cast<int>(GST_BUFFER_OFFSET(buffer));
  if (!meta || !tracks || index < 0 || index >= static_cast<int>(run.homographies.size()))
    return GST_PAD_PROBE_OK;
  // The tracker's cumulative motion maps the first frame onto this one.
  const GstKeypointMotion& motion = tracks->motion;
  const cv::Matx33d truth = run.homographies[index] * run.homographies.front().inv();
  const double error = median_corner_error(cv::Matx33d(motion.cumulative), truth, run.options.size);
  std::printf(
      "frame %3d: %5u keypoints, %5u matches, %5u inliers, %5u tracks, motion error %6.2f px%s\n",
      index, meta->n_keypoints, motion.matches, motion.inliers, motion.tracks_alive, error,
      motion.cumulative_valid ? "" : " (lost)");
  run.keypoint_total += meta->n_keypoints;
  run.match_total += motion.matches;
  run.inlier_total += motion.inliers;
  run.last_error = error;
  run.worst_error = std::max(run.worst_error, error);
  if (index == run.options.frames / 2)
    save_png(buffer, pad, run.options.png);
  ++run.frames_seen;
  return GST_PAD_PROBE_OK;
}

// Keeps at most kQueuedFrames in appsrc. appsrc's own blocking would wait forever when the
// pipeline fails before appsrc starts, so the wait here also ends when the bus loop gives up.
bool push_frames(GstElement* appsrc, Run& run, const cv::Mat& source) {
  constexpr guint64 kQueuedFrames = 4;
  const Options& o = run.options;
  for (int i = 0; i < o.frames; ++i) {
    while (gst_app_src_get_current_level_buffers(GST_APP_SRC(appsrc)) >= kQueuedFrames) {
      if (run.stop_pushing.load())
        return false;
      g_usleep(1000);
    }
    cv::Mat frame;
    cv::cvtColor(render_frame(source, run.homographies[i], o.size), frame, cv::COLOR_BGR2BGRA);
    GstBuffer* buffer = gst_buffer_new_allocate(nullptr, frame.total() * 4, nullptr);
    gst_buffer_fill(buffer, 0, frame.data, frame.total() * 4);
    GST_BUFFER_PTS(buffer) = gst_util_uint64_scale(i, GST_SECOND, 30);
    GST_BUFFER_DURATION(buffer) = gst_util_uint64_scale(1, GST_SECOND, 30);
    GST_BUFFER_OFFSET(buffer) = i;
    if (gst_app_src_push_buffer(GST_APP_SRC(appsrc), buffer) != GST_FLOW_OK)
      return false;
  }
  gst_app_src_end_of_stream(GST_APP_SRC(appsrc));
  return true;
}

void print_error(GstMessage* m) {
  GError* error = nullptr;
  gchar* debug = nullptr;
  gst_message_parse_error(m, &error, &debug);
  std::fprintf(stderr, "gpusift-demo: %s (%s)\n", error->message, debug ? debug : "");
  g_clear_error(&error);
  g_free(debug);
}

// Waits for EOS; counts the filter's per-frame messages. False on an error or when no frame
// leaves the pipeline for stall_seconds (printed).
bool wait_for_end(GstElement* pipeline, Run& run) {
  GstBus* bus = gst_element_get_bus(pipeline);
  const gint64 stall_us = static_cast<gint64>(run.options.stall_seconds * 1e6);
  gint64 last_progress = g_get_monotonic_time();
  int frames_at_last_progress = run.frames_out.load();
  bool ok = true, done = false;
  while (!done) {
    GstMessage* m = gst_bus_timed_pop(bus, GST_SECOND / 10);
    const gint64 now = g_get_monotonic_time();
    if (run.frames_out.load() != frames_at_last_progress) {
      frames_at_last_progress = run.frames_out.load();
      last_progress = now;
    } else if (now - last_progress > stall_us) {
      std::fprintf(stderr, "gpusift-demo: no frame left the pipeline for %.0f s; giving up\n",
                   run.options.stall_seconds);
      ok = false;
      done = true;
    }
    if (!m)
      continue;
    guint64 us = 0;
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ELEMENT && gst_message_has_name(m, "gpusiftfilter")) {
      if (gst_structure_get_uint64(gst_message_get_structure(m), "processing-time-us", &us)) {
        run.processing_us_total += us;
        ++run.processing_samples;
      }
    } else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ELEMENT &&
               gst_message_has_name(m, "keypointtracker")) {
      if (gst_structure_get_uint64(gst_message_get_structure(m), "processing-time-us", &us)) {
        run.tracking_us_total += us;
        ++run.tracking_samples;
      }
    } else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING) {
      GError* error = nullptr;
      gst_message_parse_warning(m, &error, nullptr);
      std::fprintf(stderr, "gpusift-demo: warning: %s\n", error->message);
      g_clear_error(&error);
    } else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
      print_error(m);
      ok = false;
      done = true;
    } else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS) {
      done = true;
    }
    gst_message_unref(m);
  }
  gst_object_unref(bus);
  return ok;
}

int run_demo(Run& run) {
  const Options& o = run.options;
  const cv::Mat source = read_image_bgr(o.image);
  if (source.empty())
    return 2;
  for (int i = 0; i < o.frames; ++i)
    run.homographies.push_back(frame_homography(i, o.frames, source.size(), o.size));

  const std::string description =
      "appsrc name=src format=time caps=video/x-raw,format=BGRx,width=" +
      std::to_string(o.size.width) + ",height=" + std::to_string(o.size.height) +
      ",framerate=30/1 ! gpusiftfilter name=sift post-messages=true backend=" + o.backend +
      " ! keypointtracker name=tracker post-messages=true backend=" + o.backend +
      " ! keypointoverlay name=overlay ! videoconvert ! x264enc speed-preset=veryfast ! "
      "mp4mux ! filesink location=\"" +
      o.mp4 + "\"";
  GstElement* pipeline = launch_pipeline(description);
  if (!pipeline)
    return 2;
  GstElement* overlay = gst_bin_get_by_name(GST_BIN(pipeline), "overlay");
  GstPad* pad = gst_element_get_static_pad(overlay, "src");
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, on_overlaid_frame, &run, nullptr);
  gst_object_unref(pad);
  gst_object_unref(overlay);
  GstElement* appsrc = gst_bin_get_by_name(GST_BIN(pipeline), "src");

  const gint64 start = g_get_monotonic_time();
  bool ok = gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE;
  // Frames are rendered and pushed beside the bus loop, which ends the run on an error or stall.
  std::thread pusher([&] { push_frames(appsrc, run, source); });
  ok = wait_for_end(pipeline, run) && ok;
  const double seconds = (g_get_monotonic_time() - start) / 1e6;
  run.stop_pushing = true;
  gst_element_set_state(pipeline, GST_STATE_NULL);
  pusher.join();
  gst_object_unref(appsrc);
  gst_object_unref(pipeline);
  if (!ok)
    return 1;

  const int n = std::max(run.frames_seen, 1);
  std::printf(
      "\n%d frames of %dx%d in %.2f s: %.1f fps through the whole pipeline (rendering, "
      "encoding included)\n",
      run.frames_seen, o.size.width, o.size.height, seconds, run.frames_seen / seconds);
  std::printf(
      "gpusiftfilter: %.2f ms per frame, %.0f keypoints per frame on average\n",
      run.processing_samples ? run.processing_us_total / 1000.0 / run.processing_samples : 0.0,
      static_cast<double>(run.keypoint_total) / n);
  std::printf(
      "keypointtracker: %.2f ms per frame, %.0f matches and %.0f inliers to the previous frame on "
      "average\n",
      run.tracking_samples ? run.tracking_us_total / 1000.0 / run.tracking_samples : 0.0,
      static_cast<double>(run.match_total) / n, static_cast<double>(run.inlier_total) / n);
  std::printf(
      "camera motion against the truth: median corner error %.2f px after %d frames (worst "
      "frame %.2f px)\n",
      run.last_error, run.frames_seen, run.worst_error);
  std::printf("wrote %s and %s\n", o.mp4.c_str(), o.png.c_str());
  return 0;
}

bool parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help")
      return false;
    if (i + 1 >= argc)
      return false;
    const std::string value = argv[++i];
    if (flag == "--image") {
      o->image = value;
    } else if (flag == "--mp4") {
      o->mp4 = value;
    } else if (flag == "--png") {
      o->png = value;
    } else if (flag == "--backend") {
      o->backend = value;
    } else if (flag == "--frames") {
      o->frames = std::atoi(value.c_str());
    } else if (flag == "--stall-timeout") {
      o->stall_seconds = std::atof(value.c_str());
    } else if (flag == "--size") {
      if (std::sscanf(value.c_str(), "%dx%d", &o->size.width, &o->size.height) != 2)
        return false;
    } else {
      return false;
    }
  }
  return o->frames > 0 && std::isfinite(o->stall_seconds) && o->stall_seconds > 0 &&
         o->size.width > 0 && o->size.height > 0 &&
         (o->backend == "auto" || o->backend == "cuda" || o->backend == "cpu");
}

}  // namespace
}  // namespace gpusift::demo

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  gpusift::demo::Run run;
  if (!gpusift::demo::parse(argc, argv, &run.options)) {
    std::fprintf(stderr,
                 "usage: gpusift-demo [--image IMAGE] [--frames N] [--size WxH] "
                 "[--backend auto|cuda|cpu] [--mp4 OUT.mp4] [--png OUT.png] [--stall-timeout S]\n");
    return 2;
  }
  return gpusift::demo::run_demo(run);
}
