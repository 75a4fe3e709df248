# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the examples: finds the built plugin (build/gst) unless GST_PLUGIN_PATH is set, and
# for the Python examples the keypoints meta library (build/gst/keypoints), its typelib
# (build/gst/keypoints/introspection) and the Python package gpusift (tools/programs/python).
# GPUSIFT_BUILD_DIR names another build folder than build/ (the tests run the examples that way).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUSIFT_BUILD_DIR:-$here/build}
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$build/gst}
export GI_TYPELIB_PATH=$build/gst/keypoints/introspection${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}
export LD_LIBRARY_PATH=$build/gst/keypoints${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# Exits with a message naming the first of the GStreamer elements given that is not installed.
require_elements() {
  local element
  for element in "$@"; do
    if ! gst-inspect-1.0 --exists "$element"; then
      echo "$(basename "$0"): GStreamer element $element not found" \
        "(GST_PLUGIN_PATH=$GST_PLUGIN_PATH)" >&2
      exit 1
    fi
  done
}
export PYTHONPATH=$here/tools/programs/python${PYTHONPATH:+:$PYTHONPATH}
