// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/error.h"

namespace gpusift {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid argument";
    case ErrorCode::kFrameTooLarge:
      return "frame too large";
    case ErrorCode::kOutOfMemory:
      return "out of memory";
    case ErrorCode::kNoDevice:
      return "no device";
    case ErrorCode::kDeviceFailure:
      return "device failure";
  }
  return "unknown error";
}

}  // namespace gpusift
