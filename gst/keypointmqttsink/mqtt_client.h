/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* keypointmqttsink's MQTT client over libmosquitto. The streaming thread only queues (enqueue()
 * takes a lock and returns): a sender thread of the client hands messages to libmosquitto while
 * it is connected, and libmosquitto's own network thread writes them, reads the broker's answers
 * and reconnects after a lost connection, waiting 1 s, then 2, 4, up to 10 s between attempts.
 * The first connection is tried in start(); when it cannot be made at all (nothing listens, the
 * host is not found) the sender thread retries it at the same pace until it is made, and
 * libmosquitto's thread takes over from there. */
#pragma once

#include <glib.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "publish_queue.h"

struct mosquitto;

namespace gpusift::mqtt {

struct ClientOptions {
  std::string host = "localhost";
  int port = 1883;
  int keepalive = 60;     // seconds
  int qos = 0;            // 0 or 1
  std::string client_id;  // empty: libmosquitto makes one up
  std::string username;   // empty: none
  std::string password;
  bool tls = false;
  std::string ca_file;  // empty: the system's certificate authorities
  std::string cert_file;
  std::string key_file;
  bool tls_insecure = false;  // no check of the broker's host name against its certificate
  int queue_size = 100;
};

struct ClientStats {
  PublishCounts counts;
  guint64 reconnects = 0;
  bool connected = false;
};

class MqttClient {
 public:
  enum class StartResult {
    kConnected,  // the broker accepted the connection
    kRetrying,   // no broker answered yet: retrying in the background, messages queue meanwhile
    kRefused,    // the broker refused the connection (credentials, client id): nothing started
    kTlsFailed,  // the TLS handshake failed (the broker's certificate not trusted): nothing started
    kInvalid,    // the options cannot work (bad TLS files, port, client id): nothing started
  };

  // @warn is called, from the client's threads, with a sentence for a lost connection or a
  // refused reconnection; once per outage.
  MqttClient(ClientOptions options, std::function<void(const std::string&)> warn);
  ~MqttClient();
  MqttClient(const MqttClient&) = delete;
  MqttClient& operator=(const MqttClient&) = delete;

  // Connects, waiting up to @wait_us for the broker's answer. @detail says why for anything but
  // kConnected.
  StartResult start(gint64 wait_us, std::string* detail);

  // Queues a message; never waits for the network.
  void enqueue(PublishMessage message);

  // Waits up to @timeout_us for every queued message to be confirmed, then counts what is left
  // as dropped. For the end of the stream.
  void flush(gint64 timeout_us);

  ClientStats stats() const;

  // The CONNACK code of the broker's last refusal (4: bad user name or password, 5: not
  // authorised, ...), 0 when the last answer was no refusal.
  int last_refusal() const;

  // Disconnects and stops both threads; whatever was not confirmed is dropped. Also done by
  // the destructor.
  void stop();

 private:
  static void on_connect(struct mosquitto* mosq, void* self, int rc);
  static void on_disconnect(struct mosquitto* mosq, void* self, int rc);
  static void on_publish(struct mosquitto* mosq, void* self, int mid);
  static void on_log(struct mosquitto* mosq, void* self, int level, const char* text);

  bool configure(std::string* detail);
  void send_loop();
  // Starts the connection and libmosquitto's thread; FALSE with the libmosquitto error in
  // @failure when the connection could not even start. Lock not held.
  bool connect_first(std::string* detail, int* failure);

  const ClientOptions options_;
  const std::function<void(const std::string&)> warn_;
  struct mosquitto* mosq_ = nullptr;
  std::thread sender_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  PublishQueue queue_;            // mutex_
  bool loop_running_ = false;     // mutex_: libmosquitto's thread runs (the first connect went out)
  bool connected_ = false;        // mutex_
  bool ever_connected_ = false;   // mutex_
  bool answered_ = false;         // mutex_: the broker answered the first connection, or hung up
  int refusal_ = 0;               // mutex_: the CONNACK code of the last refusal, 0 if none
  bool outage_reported_ = false;  // mutex_: a warning was posted for the current outage
  bool started_ = false;          // mutex_: start() returned, a refusal is a warning from now
  bool closing_ = false;          // mutex_
  int first_failure_ = 0;      // mutex_: how the first connection ended when it did without CONNACK
  bool restart_loop_ = false;  // mutex_: libmosquitto's thread gave up (TLS): start it again
  std::string tls_error_;      // mutex_: libmosquitto's line about the last TLS failure
  guint64 reconnects_ = 0;     // mutex_
  guint64 outages_ = 0;        // mutex_: connections lost (or attempts ended), for send_loop
};

}  // namespace gpusift::mqtt
