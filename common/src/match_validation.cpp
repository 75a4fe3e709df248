// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gpusift/match_validation.h"

#include <string>

#include "gpusift/error.h"

namespace gpusift {

namespace {

[[noreturn]] void reject(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, "match: " + what);
}

void validate_set(const DescriptorSetView& set, const char* name) {
  if (set.format == DescriptorFormat::kNone)
    reject(std::string(name) + " descriptors have format none");
  if (set.size < 1 || set.size > kMaxMatchDescriptorSize)
    reject(std::string(name) + " descriptor size " + std::to_string(set.size) + " is outside 1.." +
           std::to_string(kMaxMatchDescriptorSize));
  if (set.count < 0)
    reject(std::string(name) + " count is negative");
  if (set.count > 0 && set.data == nullptr)
    reject(std::string(name) + " descriptors are a null pointer");
}

}  // namespace

int descriptor_value_bytes(DescriptorFormat format) {
  switch (format) {
    case DescriptorFormat::kNone:
      return 0;
    case DescriptorFormat::kUint8:
      return 1;
    case DescriptorFormat::kFloat:
    case DescriptorFormat::kRootSift:
      return static_cast<int>(sizeof(float));
  }
  return 0;
}

void validate_match_inputs(const DescriptorSetView& query, const DescriptorSetView& train,
                           const MatchParams& params) {
  validate_set(query, "query");
  validate_set(train, "train");
  if (query.format != train.format)
    reject(std::string("query format ") + descriptor_format_name(query.format) +
           " differs from train format " + descriptor_format_name(train.format));
  if (query.size != train.size)
    reject("query descriptor size " + std::to_string(query.size) + " differs from train size " +
           std::to_string(train.size));
  if (!(params.ratio > 0.f))
    reject("ratio must be positive");
}

}  // namespace gpusift
