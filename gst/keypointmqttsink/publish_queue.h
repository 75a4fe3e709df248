/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keypointmqttsink's bounded queue and its accounting, without the network: every frame's message
 * is queued, then handed to the MQTT client, then confirmed by it (sent), or dropped (the queue
 * full, the connection lost with the message, the stream ended before it went). At any moment
 *   frames = sent + dropped + queued + in flight.
 * Not thread-safe: the owner holds its lock around every call. */
#pragma once

#include <glib.h>

#include <cstddef>
#include <deque>
#include <string>
#include <unordered_set>

namespace gpusift::mqtt {

struct PublishMessage {
  std::string topic;
  std::string payload;
};

struct PublishCounts {
  guint64 frames = 0;
  guint64 sent = 0;
  guint64 dropped = 0;
  guint64 queued = 0;
  guint64 in_flight = 0;
};

class PublishQueue {
 public:
  explicit PublishQueue(size_t capacity) : capacity_(capacity > 0 ? capacity : 1) {}

  // A frame's message joins the queue. When the queue is full its oldest message is dropped:
  // results are live data, and the newest say most about the present.
  void push(PublishMessage message);

  bool empty() const { return queue_.empty(); }
  size_t handed_over() const { return pending_.size(); }

  // The oldest message, taken for publishing: in flight until one of the three below.
  PublishMessage take();
  // The client holds the taken message under @mid, to confirm with acked().
  void handed_over(int mid);
  // The client refused the taken message because it is not connected: back to the head of the
  // queue, unless the queue filled up meanwhile (then it is dropped, the oldest).
  void put_back(PublishMessage message);
  // The client refused the taken message for good (too large, say): dropped.
  void refused();

  // The client confirmed @mid: written to the socket (QoS 0) or acknowledged by the broker (1).
  // A confirmation may come before handed_over() reports the mid: the client's thread is that
  // fast. One for a message already written off is ignored.
  void acked(int mid);

  // The client lost the messages it held: QoS 0 messages die with the connection.
  void lose_handed_over();

  // Everything not yet confirmed is dropped (the stream ends): counted, and late confirmations
  // of them ignored.
  void drop_all();

  PublishCounts counts() const;

 private:
  void write_off_pending();

  size_t capacity_;
  std::deque<PublishMessage> queue_;
  std::unordered_set<int> pending_;      // mids the client holds
  std::unordered_set<int> early_;        // mids confirmed before handed_over() reported them
  std::unordered_set<int> written_off_;  // mids counted as dropped, whose confirmation is ignored
  bool taking_ = false;                  // a message between take() and its outcome
  guint64 frames_ = 0;
  guint64 sent_ = 0;
  guint64 dropped_ = 0;
};

}  // namespace gpusift::mqtt
