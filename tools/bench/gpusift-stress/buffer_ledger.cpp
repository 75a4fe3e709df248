// SPDX-License-Identifier: LGPL-2.1-or-later
#include "buffer_ledger.h"

#include <algorithm>

namespace gpusift::stress {

namespace {

constexpr size_t kProblemsKept = 5;

std::string range_text(uint64_t first, uint64_t end) {
  return end - first == 1 ? "buffer " + std::to_string(first)
                          : "buffers " + std::to_string(first) + ".." + std::to_string(end - 1);
}

}  // namespace

uint64_t BufferLedger::enter() {
  std::lock_guard<std::mutex> lock(lock_);
  ++counts_.entered;
  return next_number_++;
}

void BufferLedger::leave(uint64_t number) {
  std::lock_guard<std::mutex> lock(lock_);
  ++counts_.left;
  if (number < next_out_) {
    // Out twice, out of order, or out after a flush or a stop had written it off.
    problem("buffer " + std::to_string(number) + " left after buffer " +
            std::to_string(next_out_ - 1) + " had been accounted for");
    return;
  }
  if (number > next_out_)
    problem(range_text(next_out_, number) + " never left, with no flush or stop since");
  next_out_ = number + 1;
}

void BufferLedger::write_off(const char* what) {
  std::lock_guard<std::mutex> lock(lock_);
  const uint64_t inside = next_number_ - next_out_;
  ++counts_.flushes;
  counts_.lost_at_flush += inside;
  if (what != nullptr)
    counts_.most_lost_at_once = std::max(counts_.most_lost_at_once, static_cast<int>(inside));
  if (what != nullptr && inside > static_cast<uint64_t>(bound_))
    problem(std::to_string(inside) + " buffers lost at a " + what + ", more than the " +
            std::to_string(bound_) + " the elements may hold");
  next_out_ = next_number_;
}

void BufferLedger::expect_all_out(const char* what) {
  std::lock_guard<std::mutex> lock(lock_);
  if (next_out_ != next_number_)
    problem(range_text(next_out_, next_number_) + " still inside at " + what);
  next_out_ = next_number_;
}

void BufferLedger::unnumbered() {
  std::lock_guard<std::mutex> lock(lock_);
  ++counts_.left;
  problem("a buffer without its number reached the appsink");
}

LedgerCounts BufferLedger::counts() const {
  std::lock_guard<std::mutex> lock(lock_);
  return counts_;
}

std::vector<std::string> BufferLedger::problems() const {
  std::lock_guard<std::mutex> lock(lock_);
  return problems_;
}

void BufferLedger::problem(const std::string& text) {
  ++counts_.problems;
  if (problems_.size() < kProblemsKept)
    problems_.push_back(text);
}

}  // namespace gpusift::stress
