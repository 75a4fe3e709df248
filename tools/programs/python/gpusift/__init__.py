# SPDX-License-Identifier: LGPL-2.1-or-later
"""gpusift's Python package: its results as numpy arrays.

- gpusift.metas: the metas on GStreamer buffers (keypoints, descriptors, tracks, motion, found
  objects); needs PyGObject and the GstKeypoints-1.0 typelib.
- gpusift.features_file: features files (.gpsf) from keypointfilesink and gpusift-extract; needs
  numpy only. As a program: `gpusift-features FILE [--npz OUT]` once installed, or
  `python3 -m gpusift.features_file`.

Neither is imported here, so that reading files needs no GStreamer.
"""
