/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The results JSON's version. docs/results-json.md documents every field and
 * docs/schema/gpusift-results-v1.schema.json is its JSON Schema: a change that a reader of
 * version 1 would misread (a field removed, renamed or given another type or meaning) needs a new
 * version and a new schema file; new optional fields do not. */
#pragma once

namespace gpusift::results {

inline constexpr int kResultsSchemaVersion = 1;

}  // namespace gpusift::results
