// SPDX-License-Identifier: LGPL-2.1-or-later
// Backend-neutral entry point: one extractor interface over the CPU and CUDA backends, for the
// CLI, the benchmarks and applications that just want features from host frames.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpusift/features.h"
#include "gpusift/frame.h"
#include "gpusift/host_frame_access.h"
#include "gpusift/method.h"
#include "gpusift/sift_params.h"

namespace gpusift {

enum class Backend { kAuto, kCpu, kCuda };

struct DeviceFeatures;  // defined by the CUDA backend (kernels/include)

const char* backend_name(Backend backend);
// Accepts "auto", "cpu", "cuda".
bool parse_backend(const std::string& text, Backend* backend);

class Extractor {
 public:
  virtual ~Extractor() = default;
  virtual Backend backend() const = 0;
  // Any PixelFormat; device memory only for the CUDA backend. Reuses out's storage.
  virtual void extract(const FrameView& frame, Features* out) = 0;

  // Frames in flight: submit() starts a frame, collect() waits for the oldest submitted frame
  // and fills `out` (storage reused). Up to max_in_flight() frames may be submitted and not yet
  // collected; each frame's pixels must stay valid and unchanged until its collect(). A refused
  // call (a submit past max_in_flight(), a collect with no frame in flight) throws
  // kInvalidArgument and changes nothing; after any other throw, or cancel(), no frame is in
  // flight. extract() is submit() then collect() and needs no frame in flight. The CPU backend
  // runs the frame in submit() and holds one frame.
  virtual int max_in_flight() const { return 1; }
  virtual void submit(const FrameView& frame);
  virtual void collect(Features* out);
  virtual void cancel();
  virtual int in_flight() const { return holding_ ? 1 : 0; }

  // The CUDA backend's results of the last collected frame still on the device (the rows of
  // `out`, in its order), valid until the next submit() or extract(): work that the caller
  // enqueues on the legacy default stream before then is ordered before the extractor writes
  // them again. False for the CPU backend.
  virtual bool device_features(DeviceFeatures* out) const {
    (void)out;
    return false;
  }

  // How the CUDA backend reads frames in host memory (kAuto unless set), from the next frame on.
  // Throws gpusift::Error(kInvalidArgument) for kMapped on a device that cannot map host memory.
  // The CPU backend reads them in place whatever is asked.
  virtual void set_host_frame_access(HostFrameAccess access) { (void)access; }
  // True when host frames reach the first kernel without an upload.
  virtual bool reads_host_frames_in_place() const { return true; }

  // GRAY8 frame in host memory, rows pitch_bytes apart.
  void extract_gray8(const uint8_t* gray, size_t pitch_bytes, int width, int height,
                     Features* out) {
    extract(FrameView{gray, pitch_bytes, width, height, PixelFormat::kGray8, MemoryKind::kHost},
            out);
  }

 private:
  // The default submit()'s frame.
  Features held_;
  bool holding_ = false;
};

// kAuto picks CUDA when it is built in and a device is present, else the CPU.
// Throws gpusift::Error: kNoDevice when kCuda is asked for and cannot be had (not built in, no
// driver or device, bad device id), kInvalidArgument for bad parameters.
std::unique_ptr<Extractor> create_extractor(Backend backend, const SiftParams& params,
                                            int cuda_device_id = -1);
// The same for either method (SURF through CpuSurfExtractor / CudaSurfExtractor).
std::unique_ptr<Extractor> create_extractor(Backend backend, const FeatureConfig& config,
                                            int cuda_device_id = -1);

// For callers that manage CUDA contexts themselves (GStreamer elements push a GstCudaContext):
// a CUDA extractor on the context current on this thread, with its own stream, selecting no
// device. Create, use and destroy it with that context current. Throws like create_extractor.
std::unique_ptr<Extractor> create_cuda_extractor_on_current_context(const SiftParams& params);
std::unique_ptr<Extractor> create_cuda_extractor_on_current_context(const FeatureConfig& config);

// Backends compiled into this build, in preference order.
std::vector<Backend> built_backends();
// Usable CUDA devices; 0 when the CUDA backend is not built, or there is no driver or GPU.
// Defined by the CUDA backend (kernels/cuda/cuda_device.cu, whose kernels call it too), or by
// common/api/src/cuda_backend_absent.cpp when that backend is not built.
int cuda_device_count();

}  // namespace gpusift
