/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Test-only stand-in for the Jetson Multimedia API's nvbufsurface.h: just the names that
 * gst/gpusiftfilter/nvmm_frame.cpp uses, declared from NVIDIA's documentation so that CI can
 * compile and link the memory:NVMM path without a Jetson (tools/scripts/ci/nvmm-stub-build.sh). The
 * layout is not the real one: never build anything for a Jetson against it. */
#ifndef GPUSIFT_TEST_NVBUFSURFACE_STUB_H
#define GPUSIFT_TEST_NVBUFSURFACE_STUB_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  NVBUF_COLOR_FORMAT_INVALID,
  NVBUF_COLOR_FORMAT_GRAY8,
  NVBUF_COLOR_FORMAT_NV12,
  NVBUF_COLOR_FORMAT_NV12_ER,
  NVBUF_COLOR_FORMAT_NV12_709,
  NVBUF_COLOR_FORMAT_NV12_709_ER,
  NVBUF_COLOR_FORMAT_NV12_2020,
  NVBUF_COLOR_FORMAT_RGBA,
} NvBufSurfaceColorFormat;

typedef enum { NVBUF_LAYOUT_PITCH, NVBUF_LAYOUT_BLOCK_LINEAR } NvBufSurfaceLayout;

typedef enum { NVBUF_MEM_DEFAULT, NVBUF_MEM_SURFACE_ARRAY } NvBufSurfaceMemType;

typedef struct NvBufSurfaceMappedAddr {
  void* eglImage;
} NvBufSurfaceMappedAddr;

typedef struct NvBufSurfaceParams {
  uint32_t width;
  uint32_t height;
  uint32_t pitch;
  NvBufSurfaceColorFormat colorFormat;
  NvBufSurfaceLayout layout;
  NvBufSurfaceMappedAddr mappedAddr;
} NvBufSurfaceParams;

typedef struct NvBufSurface {
  uint32_t batchSize;
  uint32_t numFilled;
  NvBufSurfaceMemType memType;
  NvBufSurfaceParams* surfaceList;
} NvBufSurface;

/* 0 on success, -1 on failure; index -1 means every buffer of the batch. */
int NvBufSurfaceMapEglImage(NvBufSurface* surf, int index);
int NvBufSurfaceUnMapEglImage(NvBufSurface* surf, int index);

#ifdef __cplusplus
}
#endif

#endif /* GPUSIFT_TEST_NVBUFSURFACE_STUB_H */
