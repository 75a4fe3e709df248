/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Test-only libnvbufsurface: every call fails, as on a machine without Jetson surfaces. */
#include "nvbufsurface.h"

int NvBufSurfaceMapEglImage(NvBufSurface* surf, int index) {
  (void)surf;
  (void)index;
  return -1;
}

int NvBufSurfaceUnMapEglImage(NvBufSurface* surf, int index) {
  (void)surf;
  (void)index;
  return -1;
}
