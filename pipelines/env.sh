# Sourced by the examples: finds the built plugin (build/gst) unless GST_PLUGIN_PATH is set, and
# the keypoints meta library and its typelib (build/gst/keypoints) for the Python examples.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$here/build/gst}
export GI_TYPELIB_PATH=$here/build/gst/keypoints${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}
export LD_LIBRARY_PATH=$here/build/gst/keypoints${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
