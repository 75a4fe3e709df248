// SPDX-License-Identifier: LGPL-2.1-or-later
/* The meta's keypoints are the library's, byte for byte: the elements copy and read them as
 * arrays of gpusift::Keypoint (OpenCV's cv::KeyPoint fields). One place says so, for every
 * element that includes it. */
#pragma once

#include <gst/keypoints/gstkeypointsmeta.h>

#include <cstddef>

#include "gpusift/keypoint.h"

static_assert(sizeof(GstKeypoint) == sizeof(gpusift::Keypoint), "meta keypoints are copied 1:1");
static_assert(offsetof(GstKeypoint, x) == offsetof(gpusift::Keypoint, x), "");
static_assert(offsetof(GstKeypoint, y) == offsetof(gpusift::Keypoint, y), "");
static_assert(offsetof(GstKeypoint, size) == offsetof(gpusift::Keypoint, size), "");
static_assert(offsetof(GstKeypoint, angle) == offsetof(gpusift::Keypoint, angle), "");
static_assert(offsetof(GstKeypoint, response) == offsetof(gpusift::Keypoint, response), "");
static_assert(offsetof(GstKeypoint, octave) == offsetof(gpusift::Keypoint, octave), "");
static_assert(offsetof(GstKeypoint, class_id) == offsetof(gpusift::Keypoint, class_id), "");
