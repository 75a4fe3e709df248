// SPDX-License-Identifier: LGPL-2.1-or-later
#include "feature_identity.h"

#include <cstring>
#include <vector>

namespace gpusift::testing {

namespace {

template <typename T>
size_t first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0)
      return i;
  }
  return a.size();
}

}  // namespace

::testing::AssertionResult bit_identical(const Features& a, const Features& b) {
  static_assert(sizeof(Keypoint) == 7 * 4, "memcmp of Keypoint needs it free of padding");
  if (a.keypoints.size() != b.keypoints.size())
    return ::testing::AssertionFailure()
           << a.keypoints.size() << " keypoints versus " << b.keypoints.size();
  if (a.detected_count != b.detected_count || a.overflowed != b.overflowed)
    return ::testing::AssertionFailure()
           << "detected_count/overflowed " << a.detected_count << "/" << a.overflowed << " versus "
           << b.detected_count << "/" << b.overflowed;
  const size_t keypoint = first_difference(a.keypoints, b.keypoints);
  if (keypoint != a.keypoints.size()) {
    const Keypoint &p = a.keypoints[keypoint], &q = b.keypoints[keypoint];
    return ::testing::AssertionFailure()
           << "keypoint " << keypoint << " differs: (" << p.x << ", " << p.y << ", size " << p.size
           << ", angle " << p.angle << ") versus (" << q.x << ", " << q.y << ", size " << q.size
           << ", angle " << q.angle << ")";
  }
  if (a.descriptor_format != b.descriptor_format || a.descriptor_size != b.descriptor_size)
    return ::testing::AssertionFailure() << "descriptor format or size differs";
  if (a.float_descriptors.size() != b.float_descriptors.size() ||
      a.byte_descriptors.size() != b.byte_descriptors.size())
    return ::testing::AssertionFailure() << "descriptor storage sizes differ";
  const size_t value = first_difference(a.float_descriptors, b.float_descriptors);
  if (value != a.float_descriptors.size())
    return ::testing::AssertionFailure()
           << "float descriptor value " << value << " differs: " << a.float_descriptors[value]
           << " versus " << b.float_descriptors[value];
  const size_t byte = first_difference(a.byte_descriptors, b.byte_descriptors);
  if (byte != a.byte_descriptors.size())
    return ::testing::AssertionFailure() << "byte descriptor value " << byte << " differs";
  return ::testing::AssertionSuccess();
}

}  // namespace gpusift::testing
