// SPDX-License-Identifier: LGPL-2.1-or-later
#include "object_ids.h"

namespace gpusift::results {

std::vector<guint64> ObjectIds::assign(const std::vector<std::string>& labels) {
  std::map<std::pair<std::string, int>, guint64> current;
  std::map<std::string, int> occurrences;
  std::vector<guint64> ids;
  ids.reserve(labels.size());
  for (const std::string& label : labels) {
    const std::pair<std::string, int> key{label, occurrences[label]++};
    const auto seen = previous_.find(key);
    const guint64 id = seen != previous_.end() ? seen->second : next_id_++;
    current.emplace(key, id);
    ids.push_back(id);
  }
  // Only the previous frame counts: an object missing from one frame loses its id.
  previous_.swap(current);
  return ids;
}

}  // namespace gpusift::results
