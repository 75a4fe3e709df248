// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/host_frame_access.h"

namespace gpusift {

const char* host_frame_access_name(HostFrameAccess access) {
  switch (access) {
    case HostFrameAccess::kAuto:
      return "auto";
    case HostFrameAccess::kCopy:
      return "copy";
    case HostFrameAccess::kMapped:
      return "mapped";
  }
  return "unknown";
}

bool parse_host_frame_access(const std::string& text, HostFrameAccess* access) {
  for (HostFrameAccess candidate :
       {HostFrameAccess::kAuto, HostFrameAccess::kCopy, HostFrameAccess::kMapped}) {
    if (text == host_frame_access_name(candidate)) {
      *access = candidate;
      return true;
    }
  }
  return false;
}

}  // namespace gpusift
