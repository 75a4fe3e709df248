/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* gpusiftfilter: SIFT features of every video frame, attached as GstKeypointsMeta. */
#pragma once

#include <gst/gst.h>

#include "base/gstkeypointbasetransform.h"

G_BEGIN_DECLS

#define GST_TYPE_GPUSIFT_FILTER (gst_gpusift_filter_get_type())
G_DECLARE_FINAL_TYPE(GstGpusiftFilter, gst_gpusift_filter, GST, GPUSIFT_FILTER,
                     GstKeypointBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(gpusiftfilter);

G_END_DECLS
