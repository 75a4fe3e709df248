# Sourced by the examples: finds the built plugin (build/gst) unless GST_PLUGIN_PATH is set.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export GST_PLUGIN_PATH=${GST_PLUGIN_PATH:-$here/build/gst}
