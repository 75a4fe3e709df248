/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Tracking ids of found objects: an object keeps its id for as long as it is found in frame after
 * frame, and gets a new one when it is found again after a frame without it. keypointmatcher
 * finds one object per label and frame, so an object is its label; several matchers with one
 * label are told apart by their order on the buffer (the n-th object of a label continues the
 * n-th of the previous frame). */
#pragma once

#include <glib.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpusift::results {

class ObjectIds {
 public:
  // The ids of one frame's objects, given their labels in buffer order.
  std::vector<guint64> assign(const std::vector<std::string>& labels);

  // The next frame does not follow this one (a flush, a new stream): every object found in it
  // gets a new id. Ids are never reused.
  void forget() { previous_.clear(); }

 private:
  // (label, occurrence of that label in the frame) of the previous frame.
  std::map<std::pair<std::string, int>, guint64> previous_;
  guint64 next_id_ = 1;
};

}  // namespace gpusift::results
