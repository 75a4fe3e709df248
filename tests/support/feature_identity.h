// SPDX-License-Identifier: LGPL-2.1-or-later
// Bit-for-bit equality of two extraction results, for the tests that promise determinism.
#pragma once

#include <gtest/gtest.h>

#include "gpusift/features.h"

namespace gpusift::testing {

// Success when keypoints, descriptors and the counts are identical to the bit; otherwise says
// what differs first. Use as EXPECT_TRUE(bit_identical(a, b)).
::testing::AssertionResult bit_identical(const Features& a, const Features& b);

}  // namespace gpusift::testing
