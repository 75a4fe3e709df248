// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/match_and_fit.h"

#include "gpusift/error.h"
#include "gpusift/match_validation.h"
#include "gpusift/ransac.h"

namespace gpusift {

void validate_match_and_fit(const MatchAndFitRequest& request) {
  validate_match_inputs(request.query, request.train, request.match);
  if ((request.query.count > 0 && !request.query_points) ||
      (request.train.count > 0 && !request.train_points))
    throw Error(ErrorCode::kInvalidArgument,
                "match and fit: every descriptor row needs its keypoint position");
  validate(request.ransac);
}

void keep_nearest_query_per_train(std::vector<Match>* matches, int train_count) {
  std::vector<int> best(static_cast<size_t>(train_count), -1);
  for (size_t k = 0; k < matches->size(); ++k) {
    int& slot = best[static_cast<size_t>((*matches)[k].train)];
    if (slot < 0 || (*matches)[k].distance < (*matches)[static_cast<size_t>(slot)].distance)
      slot = static_cast<int>(k);
  }
  size_t kept = 0;
  for (size_t k = 0; k < matches->size(); ++k)
    if (best[static_cast<size_t>((*matches)[k].train)] == static_cast<int>(k))
      (*matches)[kept++] = (*matches)[k];
  matches->resize(kept);
}

void pairs_of_matches(const std::vector<Match>& matches, const PointXY* query_points,
                      const PointXY* train_points, bool from_train, std::vector<PointPair>* pairs) {
  pairs->resize(matches.size());
  for (size_t k = 0; k < matches.size(); ++k) {
    const PointXY q = query_points[matches[k].query], t = train_points[matches[k].train];
    (*pairs)[k] = from_train ? PointPair{t.x, t.y, q.x, q.y} : PointPair{q.x, q.y, t.x, t.y};
  }
}

}  // namespace gpusift
