// SPDX-License-Identifier: LGPL-2.1-or-later
// Reads binary PGM (P5) and PPM (P6) 8-bit images, so that the suites need no image codecs.
#pragma once

#include <opencv2/core.hpp>
#include <string>

namespace gpusift::testing {

// CV_8UC1 for PGM, CV_8UC3 in BGR order for PPM; an empty Mat when the file is missing or not
// an 8-bit binary PNM.
cv::Mat read_pnm(const std::string& path);

}  // namespace gpusift::testing
