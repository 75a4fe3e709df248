// SPDX-License-Identifier: LGPL-2.1-or-later
// "Every buffer out", per pipeline. Each buffer that enters gpusiftfilter is numbered; the
// numbers must reach the appsink once each and in order. The only buffers allowed to go missing
// are those inside the pipeline at a flush or a stop, and no more of them than the elements may
// hold (the bound); at EOS none may be missing.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace gpusift::stress {

struct LedgerCounts {
  uint64_t entered = 0;        // buffers into gpusiftfilter
  uint64_t left = 0;           // buffers out at the appsink
  uint64_t lost_at_flush = 0;  // inside at a flush or a stop, within the bound
  uint64_t flushes = 0;        // flushes and stops
  int most_lost_at_once = 0;
  uint64_t problems = 0;  // losses past the bound, gaps, repeats, buffers left inside at EOS
};

class BufferLedger {
 public:
  explicit BufferLedger(int bound) : bound_(bound) {}

  // A buffer enters gpusiftfilter: its number (from 0 up).
  uint64_t enter();

  // Buffer `number` leaves at the appsink.
  void leave(uint64_t number);

  // The stream was flushed or the pipeline stopped: no buffer that entered before can come out
  // any more. `what` names the cause in a problem; nullptr writes off without the bound (after
  // a failure that is reported on its own).
  void write_off(const char* what);

  // EOS reached the appsink: every buffer that entered must have left.
  void expect_all_out(const char* what);

  // A buffer reached the appsink without a number: it did not come through gpusiftfilter.
  void unnumbered();

  LedgerCounts counts() const;
  // The first few problems, one line each.
  std::vector<std::string> problems() const;

 private:
  void problem(const std::string& text);  // with lock_ held

  const int bound_;
  mutable std::mutex lock_;
  uint64_t next_number_ = 0;  // the next buffer's number at the entry
  uint64_t next_out_ = 0;     // the lowest number neither out nor written off
  LedgerCounts counts_;
  std::vector<std::string> problems_;
};

}  // namespace gpusift::stress
