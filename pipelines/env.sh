# Sourced by the examples: finds the built plugin (build/gst) unless GST_PLUGIN_PATH is set, and
# the keypoints meta library and its typelib (build/gst/keypoints) for the Python examples.
# GPUSIFT_BUILD_DIR names another build folder than build/ (the tests run the examples that way).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GPUSIFT_BUILD_DIR:-$here/build}
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$build/gst}
export GI_TYPELIB_PATH=$build/gst/keypoints${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}
export LD_LIBRARY_PATH=$build/gst/keypoints${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
