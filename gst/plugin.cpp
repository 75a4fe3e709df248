// SPDX-License-Identifier: LGPL-2.1-or-later
/* The gpusift plugin: registration only; each element lives in its own file. */
#include <gst/gst.h>

#include "gpusiftfilter/gstgpusiftfilter.h"
#include "keypointfilesink/gstkeypointfilesink.h"
#ifdef GPUSIFT_HAVE_RESULTS_JSON
#include "keypointjsonsink/gstkeypointjsonsink.h"
#endif
#include "keypointmatcher/gstkeypointmatcher.h"
#ifdef GPUSIFT_HAVE_MQTT
#include "keypointmqttsink/gstkeypointmqttsink.h"
#endif
#include "keypointoverlay/gstkeypointoverlay.h"
#include "keypointtracker/gstkeypointtracker.h"

static gboolean plugin_init(GstPlugin* plugin) {
  gboolean ok = FALSE;
  ok |= GST_ELEMENT_REGISTER(gpusiftfilter, plugin);
  ok |= GST_ELEMENT_REGISTER(keypointoverlay, plugin);
  ok |= GST_ELEMENT_REGISTER(keypointtracker, plugin);
  ok |= GST_ELEMENT_REGISTER(keypointfilesink, plugin);
  ok |= GST_ELEMENT_REGISTER(keypointmatcher, plugin);
#ifdef GPUSIFT_HAVE_RESULTS_JSON
  ok |= GST_ELEMENT_REGISTER(keypointjsonsink, plugin);
#endif
#ifdef GPUSIFT_HAVE_MQTT
  ok |= GST_ELEMENT_REGISTER(keypointmqttsink, plugin);
#endif
  return ok;
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, gpusift,
                  "SIFT features on NVIDIA GPUs, attached to video buffers as metadata",
                  plugin_init, VERSION, "LGPL", GPUSIFT_PACKAGE_NAME, GPUSIFT_PACKAGE_ORIGIN)
