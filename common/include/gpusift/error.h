// SPDX-License-Identifier: LGPL-2.1-or-later
// The one exception type of the gpusift API: a category plus a message fit for users.
#pragma once

#include <stdexcept>
#include <string>

namespace gpusift {

enum class ErrorCode {
  kInvalidArgument,  // bad parameter, null pointer, bad pitch, unsupported format
  kFrameTooLarge,    // dimensions past kMaxFrameSide or kMaxFramePixels
  kOutOfMemory,      // host or device allocation failed
  kNoDevice,         // no usable CUDA device, or the backend is not built in
  kDeviceFailure,    // a CUDA call failed
};

const char* error_code_name(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace gpusift
