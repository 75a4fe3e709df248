// Backend-neutral entry point: one extractor interface over the CPU and CUDA backends, for the
// CLI, the benchmarks and applications that just want features from host frames.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpusift/features.h"
#include "gpusift/sift_params.h"

namespace gpusift {

enum class Backend { kAuto, kCpu, kCuda };

const char* backend_name(Backend backend);
// Accepts "auto", "cpu", "cuda".
bool parse_backend(const std::string& text, Backend* backend);

class Extractor {
 public:
  virtual ~Extractor() = default;
  virtual Backend backend() const = 0;
  // GRAY8 frame in host memory, rows pitch_bytes apart. Reuses out's storage.
  virtual void extract_gray8(const uint8_t* gray, size_t pitch_bytes, int width, int height,
                             Features* out) = 0;
};

// kAuto picks CUDA when it is built in and a device is present, else the CPU.
// Throws gpusift::Error: kNoDevice when kCuda is asked for and cannot be had (not built in, no
// driver or device, bad device id), kInvalidArgument for bad parameters.
std::unique_ptr<Extractor> create_extractor(Backend backend, const SiftParams& params,
                                            int cuda_device_id = -1);

// Backends compiled into this build, in preference order.
std::vector<Backend> built_backends();
// Usable CUDA devices; 0 when the backend is not built, or there is no driver or GPU.
int cuda_device_count();

}  // namespace gpusift
