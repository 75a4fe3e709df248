// SPDX-License-Identifier: LGPL-2.1-or-later
// The argument checks both matchers make before touching any data.
#pragma once

#include "gpusift/match_types.h"

namespace gpusift {

// Throws gpusift::Error(kInvalidArgument) naming the problem: kNone or differing formats, sizes
// that differ or lie outside 1..kMaxMatchDescriptorSize, negative counts, a null pointer with
// rows, a ratio that is not positive (NaN included). Memory kinds are the backend's to check.
void validate_match_inputs(const DescriptorSetView& query, const DescriptorSetView& train,
                           const MatchParams& params);

// Bytes of one descriptor value: 1 for kUint8, 4 for the float formats, 0 for kNone.
int descriptor_value_bytes(DescriptorFormat format);

}  // namespace gpusift
