// SPDX-License-Identifier: LGPL-2.1-or-later
/* keypointmqttsink's queue accounting without a broker: frames = sent + dropped + queued + in
 * flight after every step, the oldest dropped when full, confirmations that overtake the
 * hand-over, QoS 0 messages lost with a connection, and the end of a stream. */
#include <gtest/gtest.h>

#include <string>

#include "keypointmqttsink/publish_queue.h"

namespace {

using gpusift::mqtt::PublishCounts;
using gpusift::mqtt::PublishMessage;
using gpusift::mqtt::PublishQueue;

PublishMessage message(int n) {
  return PublishMessage{"gpusift/s/results", std::to_string(n)};
}

void expect_balanced(const PublishQueue& queue) {
  const PublishCounts c = queue.counts();
  EXPECT_EQ(c.frames, c.sent + c.dropped + c.queued + c.in_flight)
      << "sent " << c.sent << " dropped " << c.dropped << " queued " << c.queued << " in flight "
      << c.in_flight;
}

TEST(PublishQueue, AFullQueueDropsItsOldest) {
  PublishQueue queue(3);
  for (int i = 0; i < 5; ++i) {
    queue.push(message(i));
    expect_balanced(queue);
  }
  EXPECT_EQ(queue.counts().dropped, 2u);
  EXPECT_EQ(queue.counts().queued, 3u);
  EXPECT_EQ(queue.take().payload, "2");  // 0 and 1 went
  queue.handed_over(7);
  expect_balanced(queue);
}

TEST(PublishQueue, HandedOverThenConfirmedIsSent) {
  PublishQueue queue(10);
  queue.push(message(0));
  queue.push(message(1));
  PublishMessage m = queue.take();
  EXPECT_EQ(queue.counts().in_flight, 1u);
  expect_balanced(queue);
  queue.handed_over(1);
  EXPECT_EQ(queue.handed_over(), 1u);
  queue.acked(1);
  EXPECT_EQ(queue.counts().sent, 1u);
  EXPECT_EQ(queue.counts().in_flight, 0u);
  expect_balanced(queue);
  // An unknown confirmation changes nothing.
  queue.acked(99);
  EXPECT_EQ(queue.counts().sent, 1u);
  expect_balanced(queue);
}

TEST(PublishQueue, AConfirmationMayOvertakeTheHandOver) {
  PublishQueue queue(10);
  queue.push(message(0));
  queue.take();
  queue.acked(5);  // libmosquitto's thread wrote it before publish() returned
  EXPECT_EQ(queue.counts().sent, 1u);
  EXPECT_EQ(queue.counts().in_flight, 0u);
  expect_balanced(queue);
  queue.handed_over(5);
  EXPECT_EQ(queue.handed_over(), 0u);
  expect_balanced(queue);
}

TEST(PublishQueue, NotConnectedPutsTheMessageBackAtTheHead) {
  PublishQueue queue(2);
  queue.push(message(0));
  queue.push(message(1));
  PublishMessage m = queue.take();
  queue.put_back(std::move(m));
  expect_balanced(queue);
  EXPECT_EQ(queue.take().payload, "0");
  // The queue filled up meanwhile: the message taken is the oldest, so it goes.
  queue.push(message(2));
  queue.push(message(3));
  EXPECT_EQ(queue.counts().dropped, 1u);  // 1 made room for 3
  queue.put_back(message(0));
  EXPECT_EQ(queue.counts().dropped, 2u);
  EXPECT_EQ(queue.take().payload, "2");
  queue.refused();
  EXPECT_EQ(queue.counts().dropped, 3u);
  expect_balanced(queue);
}

TEST(PublishQueue, ALostConnectionDropsWhatTheClientHeld) {
  PublishQueue queue(10);
  for (int i = 0; i < 4; ++i)
    queue.push(message(i));
  for (int mid = 1; mid <= 3; ++mid) {
    queue.take();
    queue.handed_over(mid);
  }
  queue.acked(1);
  queue.lose_handed_over();
  const PublishCounts c = queue.counts();
  EXPECT_EQ(c.sent, 1u);
  EXPECT_EQ(c.dropped, 2u);
  EXPECT_EQ(c.queued, 1u);
  EXPECT_EQ(c.in_flight, 0u);
  // A confirmation of a message written off is not counted twice.
  queue.acked(2);
  EXPECT_EQ(queue.counts().sent, 1u);
  expect_balanced(queue);
}

TEST(PublishQueue, TheEndOfTheStreamDropsEverythingLeft) {
  PublishQueue queue(10);
  for (int i = 0; i < 5; ++i)
    queue.push(message(i));
  queue.take();
  queue.handed_over(1);
  queue.take();
  queue.handed_over(2);
  queue.acked(2);
  queue.drop_all();
  PublishCounts c = queue.counts();
  EXPECT_EQ(c.frames, 5u);
  EXPECT_EQ(c.sent, 1u);
  EXPECT_EQ(c.dropped, 4u);
  EXPECT_EQ(c.queued + c.in_flight, 0u);
  // A late QoS 1 acknowledgement of a message counted as dropped stays dropped.
  queue.acked(1);
  c = queue.counts();
  EXPECT_EQ(c.sent + c.dropped, c.frames);
  EXPECT_TRUE(queue.empty());
}

}  // namespace
