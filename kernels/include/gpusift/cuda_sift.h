// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA backend: the SIFT pipeline of common/ on an NVIDIA GPU, built for video.
//
// An extractor owns every device buffer and its pinned host buffers; they are sized on the first
// frame and reused for every later frame of that size, and re-created when the size changes.
// It never selects a device, never uses the default stream and never synchronises the device:
// create and use it with its device current (gst_cuda_context_push, cudaSetDevice by the caller)
// and pass the stream to run on. Instances share nothing, so several extractors on several
// streams or GPUs run concurrently. One call at a time per instance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "gpusift/features.h"
#include "gpusift/frame.h"
#include "gpusift/host_frame_access.h"
#include "gpusift/keypoint.h"
#include "gpusift/sift_params.h"

struct CUstream_st;
struct CUevent_st;

namespace gpusift {

using CudaStream = CUstream_st*;

// Results of the last frame, still on the device; valid until the next enqueue.
struct DeviceFeatures {
  const Keypoint* keypoints;
  const void* descriptors;  // count rows of descriptor_size floats, or bytes for kUint8
  int count;
  int descriptor_size;
  DescriptorFormat descriptor_format;
};

class CudaSiftExtractor {
 public:
  // device_id must be the current device (-1: take the current one). Throws gpusift::Error:
  // kNoDevice without a usable device, kInvalidArgument for bad parameters.
  CudaSiftExtractor(const SiftParams& params, int device_id = -1);
  ~CudaSiftExtractor();
  CudaSiftExtractor(const CudaSiftExtractor&) = delete;
  CudaSiftExtractor& operator=(const CudaSiftExtractor&) = delete;

  // Runs the whole pipeline for one frame on `stream` and fills `out` (storage reused).
  // Waits only for this stream. Throws gpusift::Error: kInvalidArgument / kFrameTooLarge for a
  // bad frame, kOutOfMemory when device or pinned memory runs out, kDeviceFailure for any other
  // CUDA error; `out` is then empty and the extractor usable for the next frame.
  void extract(const FrameView& frame, CudaStream stream, Features* out);

  // Frames in flight, all on one stream: begin() enqueues a frame and returns without waiting
  // for the device; finish() waits for the oldest begun frame's results and fills `out`. Up to
  // kMaxInFlight frames may be begun and not finished; each frame's pixels stay valid and
  // unchanged until its finish(). A frame in host memory must hold its pixels when begin() is
  // called: it is uploaded on a stream of the extractor's own, which does not wait for work
  // enqueued on `stream` before (so that the upload overlaps the frame before); a device frame is
  // read on `stream`. Errors and their codes as extract(); after a throw from either call, or
  // cancel(), no frame is in flight. extract() is begin() then finish().
  static constexpr int kMaxInFlight = 2;
  void begin(const FrameView& frame, CudaStream stream);
  void finish(Features* out);
  void cancel();  // waits for the stream
  int in_flight() const;

  // The results of the last finished frame, until the next begin() or extract().
  DeviceFeatures device_features() const;
  const SiftParams& params() const;
  int device_id() const;
  // Applies from the next begin(); the default is kAuto. Throws gpusift::Error(kInvalidArgument)
  // for kMapped on a device that cannot map host memory.
  void set_host_frame_access(HostFrameAccess access);
  bool maps_host_frames() const;
  size_t reserved_device_bytes() const;
  size_t reserved_pinned_bytes() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The convenience layer for callers without their own CUDA context management (CLI, tests):
// makes a device current for the lifetime of the object, restoring the previous one after.
class ScopedCudaDevice {
 public:
  explicit ScopedCudaDevice(int device_id);  // -1: device 0; throws kNoDevice
  ~ScopedCudaDevice();
  ScopedCudaDevice(const ScopedCudaDevice&) = delete;
  ScopedCudaDevice& operator=(const ScopedCudaDevice&) = delete;
  int id() const { return id_; }

 private:
  int id_;
  int previous_;
};

// A non-blocking stream owned by the caller's code, on the current device or context. It never
// waits for the legacy default stream by itself, so that instances never serialise on it.
class OwnedCudaStream {
 public:
  OwnedCudaStream();
  explicit OwnedCudaStream(const ScopedCudaDevice& device);
  ~OwnedCudaStream();
  OwnedCudaStream(const OwnedCudaStream&) = delete;
  OwnedCudaStream& operator=(const OwnedCudaStream&) = delete;
  CudaStream get() const { return stream_; }

  // Orders the work enqueued on this stream from now on after the work enqueued so far on the
  // legacy default stream, where GStreamer 1.22's CUDA elements (cudaupload, nvh264dec) write
  // the frames they pass on: an event recorded there that this stream waits for, which blocks
  // neither stream. Throws gpusift::Error (kDeviceFailure).
  void wait_for_legacy_default_stream();

 private:
  CudaStream stream_;
  CUevent_st* legacy_mark_;
};

}  // namespace gpusift
