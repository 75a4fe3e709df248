// SPDX-License-Identifier: LGPL-2.1-or-later
/* For classes that own a mapping, a registration or device memory and release it once: copies
 * would release it twice. */
#pragma once

namespace gpusift::gst {

class NonCopyable {
 public:
  NonCopyable(const NonCopyable&) = delete;
  NonCopyable& operator=(const NonCopyable&) = delete;

 protected:
  NonCopyable() = default;
  ~NonCopyable() = default;
};

}  // namespace gpusift::gst
