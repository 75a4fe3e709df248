# SPDX-License-Identifier: LGPL-2.1-or-later
"""Imported first by the Python suites: exits 77 (meson's "skipped") when this Python lacks
PyGObject, GStreamer's Python overrides or numpy. Anything else missing (the GstKeypoints typelib,
the plugin, a test image) is a failure, not a skip."""

import sys

SKIPPED = 77

try:
    import gi

    gi.require_version("Gst", "1.0")
    import numpy  # noqa: F401
    from gi.repository import Gst
except (ImportError, ValueError) as error:
    print(f"skipped: {error} (Debian: python3-gi python3-gst-1.0 python3-numpy)")
    sys.exit(SKIPPED)

if Gst.Buffer.__module__ != "gi.overrides.Gst":
    print("skipped: GStreamer's Python overrides are missing (Debian: python3-gst-1.0)")
    sys.exit(SKIPPED)
