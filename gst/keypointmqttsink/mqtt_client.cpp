// SPDX-License-Identifier: LGPL-2.1-or-later
#include "mqtt_client.h"

#include <mosquitto.h>
#include <mqtt_protocol.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <utility>

namespace gpusift::mqtt {

namespace {

// libmosquitto's pace between connection attempts: 1 s, doubling up to 10 s. Short enough that a
// restarted broker gets results again within seconds.
constexpr unsigned kReconnectDelayMin = 1;
constexpr unsigned kReconnectDelayMax = 10;
// Messages handed to libmosquitto and not yet confirmed, at most: the rest wait in the bounded
// queue, so that libmosquitto's own (unbounded) queue never grows.
constexpr size_t kMaxHandedOver = 32;

void init_library_once() {
  static gsize done = 0;
  if (g_once_init_enter(&done)) {
    // Never cleaned up: other users of libmosquitto in the process may need it.
    mosquitto_lib_init();
    g_once_init_leave(&done, 1);
  }
}

// The text of a libmosquitto result; errno's for a system error.
std::string describe(int rc, int saved_errno) {
  if (rc == MOSQ_ERR_ERRNO && saved_errno != 0)
    return g_strerror(saved_errno);
  return mosquitto_strerror(rc);
}

// The broker's refusal in words; mosquitto_connack_string()'s are sentences of their own.
const char* refusal_text(int code) {
  switch (code) {
    case CONNACK_REFUSED_PROTOCOL_VERSION:
      return "unacceptable protocol version";
    case CONNACK_REFUSED_IDENTIFIER_REJECTED:
      return "client id rejected";
    case CONNACK_REFUSED_SERVER_UNAVAILABLE:
      return "server unavailable";
    case CONNACK_REFUSED_BAD_USERNAME_PASSWORD:
      return "bad user name or password";
    case CONNACK_REFUSED_NOT_AUTHORIZED:
      return "not authorised";
    default:
      return "refused";
  }
}

const char* nonempty(const std::string& s) {
  return s.empty() ? nullptr : s.c_str();
}

}  // namespace

MqttClient::MqttClient(ClientOptions options, std::function<void(const std::string&)> warn)
    : options_(std::move(options)),
      warn_(std::move(warn)),
      queue_(static_cast<size_t>(options_.queue_size)) {}

MqttClient::~MqttClient() {
  stop();
}

bool MqttClient::configure(std::string* detail) {
  init_library_once();
  mosq_ = mosquitto_new(nonempty(options_.client_id), true, this);
  if (mosq_ == nullptr) {
    *detail = errno == EINVAL ? "the client id is not valid" : g_strerror(errno);
    return false;
  }
  mosquitto_int_option(mosq_, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311);
  if (!options_.username.empty() &&
      mosquitto_username_pw_set(mosq_, options_.username.c_str(), nonempty(options_.password)) !=
          MOSQ_ERR_SUCCESS) {
    *detail = "the user name or password is not valid";
    return false;
  }
  if (options_.tls) {
    // Without a CA file the system's authorities are trusted; libmosquitto checks that the files
    // given can be opened.
    if (options_.ca_file.empty())
      mosquitto_int_option(mosq_, MOSQ_OPT_TLS_USE_OS_CERTS, 1);
    const int rc = mosquitto_tls_set(
        mosq_, nonempty(options_.ca_file), options_.ca_file.empty() ? "/etc/ssl/certs" : nullptr,
        nonempty(options_.cert_file), nonempty(options_.key_file), nullptr);
    if (rc != MOSQ_ERR_SUCCESS) {
      *detail = "TLS: " + describe(rc, errno) +
                " (are ca-file, cert-file and key-file readable, and given as a pair?)";
      return false;
    }
    mosquitto_tls_insecure_set(mosq_, options_.tls_insecure);
  }
  mosquitto_connect_callback_set(mosq_, &MqttClient::on_connect);
  mosquitto_disconnect_callback_set(mosq_, &MqttClient::on_disconnect);
  mosquitto_publish_callback_set(mosq_, &MqttClient::on_publish);
  mosquitto_log_callback_set(mosq_, &MqttClient::on_log);
  mosquitto_reconnect_delay_set(mosq_, kReconnectDelayMin, kReconnectDelayMax, true);
  return true;
}

bool MqttClient::connect_first(std::string* detail, int* failure) {
  errno = 0;
  const int rc =
      mosquitto_connect_async(mosq_, options_.host.c_str(), options_.port, options_.keepalive);
  const int saved_errno = errno;
  if (rc != MOSQ_ERR_SUCCESS) {
    *detail = describe(rc, saved_errno);
    *failure = rc;
    return false;
  }
  // From here libmosquitto's thread owns the connection and reconnects by itself.
  if (mosquitto_loop_start(mosq_) != MOSQ_ERR_SUCCESS) {
    *detail = "could not start libmosquitto's thread";
    return false;
  }
  std::lock_guard<std::mutex> hold(mutex_);
  loop_running_ = true;
  return true;
}

MqttClient::StartResult MqttClient::start(gint64 wait_us, std::string* detail) {
  if (options_.host.empty()) {
    *detail = "no host given";
    return StartResult::kInvalid;
  }
  if (options_.port < 1 || options_.port > 65535) {
    *detail = "the port must be 1..65535";
    return StartResult::kInvalid;
  }
  if (!configure(detail)) {
    stop();
    return StartResult::kInvalid;
  }
  StartResult result = StartResult::kRetrying;
  int failure = MOSQ_ERR_SUCCESS;
  if (!connect_first(detail, &failure)) {
    // A TLS failure is the configuration's (CA, certificate, key), not the broker's absence.
    if (failure == MOSQ_ERR_TLS) {
      std::lock_guard<std::mutex> hold(mutex_);
      if (!tls_error_.empty())
        *detail = tls_error_;
      result = StartResult::kTlsFailed;
    }
  } else {
    std::unique_lock<std::mutex> hold(mutex_);
    changed_.wait_for(hold, std::chrono::microseconds(wait_us), [this] { return answered_; });
    if (connected_) {
      result = StartResult::kConnected;
    } else if (refusal_ != 0) {
      *detail = refusal_text(refusal_);
      // "Server unavailable" passes; the other refusals (credentials, client id, protocol) stay
      // until the settings change.
      if (refusal_ != CONNACK_REFUSED_SERVER_UNAVAILABLE)
        result = StartResult::kRefused;
    } else if (first_failure_ == MOSQ_ERR_TLS) {
      *detail = tls_error_.empty() ? mosquitto_strerror(first_failure_) : tls_error_;
      result = StartResult::kTlsFailed;
    } else if (answered_) {
      *detail = "the broker closed the connection";
    } else {
      *detail = "no answer from the broker";
    }
  }
  if (result == StartResult::kRefused || result == StartResult::kTlsFailed) {
    stop();
    return result;
  }
  {
    std::lock_guard<std::mutex> hold(mutex_);
    started_ = true;
  }
  sender_ = std::thread([this] { send_loop(); });
  return result;
}

void MqttClient::enqueue(PublishMessage message) {
  {
    std::lock_guard<std::mutex> hold(mutex_);
    queue_.push(std::move(message));
  }
  changed_.notify_all();
}

void MqttClient::send_loop() {
  std::unique_lock<std::mutex> hold(mutex_);
  auto delay = std::chrono::seconds(kReconnectDelayMin);
  while (!closing_) {
    if (!loop_running_) {
      // The first connection never went out: try again at libmosquitto's pace.
      if (changed_.wait_for(hold, delay, [this] { return closing_; }))
        break;
      delay = std::min(delay * 2, std::chrono::seconds(kReconnectDelayMax));
      hold.unlock();
      std::string ignored;
      int failure = MOSQ_ERR_SUCCESS;
      connect_first(&ignored, &failure);
      hold.lock();
      continue;
    }
    if (restart_loop_) {
      // libmosquitto's thread stops for good after a TLS failure: end it, and connect again at
      // the pace of a first connection that could not be made.
      restart_loop_ = false;
      hold.unlock();
      mosquitto_disconnect(mosq_);
      mosquitto_loop_stop(mosq_, false);
      hold.lock();
      loop_running_ = false;
      ++outages_;
      // No disconnect callback came: the QoS 0 messages libmosquitto held are gone here.
      if (options_.qos == 0)
        queue_.lose_handed_over();
      delay = std::chrono::seconds(kReconnectDelayMin);
      continue;
    }
    if (!connected_ || queue_.empty() || queue_.handed_over() >= kMaxHandedOver) {
      changed_.wait(hold);
      continue;
    }
    PublishMessage message = queue_.take();
    const guint64 outages = outages_;
    hold.unlock();
    // Not under our lock: libmosquitto takes its own locks, and its thread takes ours in the
    // callbacks.
    int mid = 0;
    const int rc = mosquitto_publish(mosq_, &mid, message.topic.c_str(),
                                     static_cast<int>(message.payload.size()),
                                     message.payload.data(), options_.qos, false);
    hold.lock();
    if (rc == MOSQ_ERR_SUCCESS || (rc == MOSQ_ERR_NO_CONN && options_.qos > 0)) {
      // A QoS 1 message is kept by libmosquitto even when the connection just went, and sent
      // after the reconnection.
      queue_.handed_over(mid);
      // A QoS 0 message handed to a connection that went meanwhile died with it, after
      // on_disconnect wrote off the others: written off too, or it would stay in flight (and
      // hold EOS for flush-timeout) with no confirmation ever to come.
      if (options_.qos == 0 && outages != outages_)
        queue_.lose_handed_over();
    } else if (rc == MOSQ_ERR_NO_CONN || rc == MOSQ_ERR_CONN_LOST) {
      connected_ = false;  // on_connect sets it again
      queue_.put_back(std::move(message));
    } else {
      queue_.refused();
    }
  }
}

void MqttClient::flush(gint64 timeout_us) {
  std::unique_lock<std::mutex> hold(mutex_);
  changed_.wait_for(hold, std::chrono::microseconds(timeout_us), [this] {
    const PublishCounts c = queue_.counts();
    return closing_ || (c.queued == 0 && c.in_flight == 0);
  });
  queue_.drop_all();
}

int MqttClient::last_refusal() const {
  std::lock_guard<std::mutex> hold(mutex_);
  return refusal_;
}

ClientStats MqttClient::stats() const {
  std::lock_guard<std::mutex> hold(mutex_);
  ClientStats s;
  s.counts = queue_.counts();
  s.reconnects = reconnects_;
  s.connected = connected_;
  return s;
}

void MqttClient::stop() {
  {
    std::lock_guard<std::mutex> hold(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  if (sender_.joinable())
    sender_.join();
  if (mosq_ != nullptr) {
    bool loop_running;
    {
      std::lock_guard<std::mutex> hold(mutex_);
      loop_running = loop_running_;
      loop_running_ = false;
    }
    if (loop_running) {
      mosquitto_disconnect(mosq_);
      mosquitto_loop_stop(mosq_, false);
    }
    mosquitto_destroy(mosq_);
    mosq_ = nullptr;
  }
  std::lock_guard<std::mutex> hold(mutex_);
  connected_ = false;
  queue_.drop_all();
}

void MqttClient::on_connect(struct mosquitto*, void* data, int rc) {
  auto* self = static_cast<MqttClient*>(data);
  std::string warning;
  {
    std::lock_guard<std::mutex> hold(self->mutex_);
    self->answered_ = true;
    if (rc == 0) {
      self->connected_ = true;
      if (self->ever_connected_)
        ++self->reconnects_;
      self->ever_connected_ = true;
      self->refusal_ = 0;
      self->outage_reported_ = false;
      // A reconnection starts afresh: QoS 0 messages handed over before it are gone.
      if (self->options_.qos == 0)
        self->queue_.lose_handed_over();
    } else {
      // Refused (user name or password, client id, protocol): libmosquitto tries again at its
      // pace. start() reports a refusal it waits for as an error; later ones are warnings.
      if (self->refusal_ != rc && self->started_)
        warning = std::string("The MQTT broker refused the connection: ") + refusal_text(rc) +
                  "; retrying.";
      self->refusal_ = rc;
      self->outage_reported_ = true;
    }
  }
  self->changed_.notify_all();
  if (!warning.empty() && self->warn_)
    self->warn_(warning);
}

void MqttClient::on_disconnect(struct mosquitto*, void* data, int rc) {
  auto* self = static_cast<MqttClient*>(data);
  std::string warning;
  {
    std::lock_guard<std::mutex> hold(self->mutex_);
    self->answered_ = true;
    const bool was_connected = self->connected_;
    self->connected_ = false;
    ++self->outages_;
    if (self->options_.qos == 0)
      self->queue_.lose_handed_over();
    if (!self->ever_connected_ && self->first_failure_ == 0)
      self->first_failure_ = rc;
    // rc 0 is our own disconnect at stop.
    if (rc != 0 && was_connected && !self->outage_reported_ && !self->closing_) {
      warning = std::string("Lost the connection to the MQTT broker (") + mosquitto_strerror(rc) +
                "); reconnecting, results wait in the queue meanwhile.";
      self->outage_reported_ = true;
    }
  }
  self->changed_.notify_all();
  if (!warning.empty() && self->warn_)
    self->warn_(warning);
}

// A failed TLS handshake ends libmosquitto's thread without a disconnect callback; its log line
// is the one sign of it.
void MqttClient::on_log(struct mosquitto*, void* data, int level, const char* text) {
  if (!(level & MOSQ_LOG_ERR) || text == nullptr ||
      (strstr(text, "SSL") == nullptr && strstr(text, "TLS") == nullptr))
    return;
  auto* self = static_cast<MqttClient*>(data);
  std::string warning;
  {
    std::lock_guard<std::mutex> hold(self->mutex_);
    self->tls_error_ = text;
    self->answered_ = true;
    self->connected_ = false;
    if (!self->ever_connected_ && self->first_failure_ == 0)
      self->first_failure_ = MOSQ_ERR_TLS;
    if (self->started_) {
      self->restart_loop_ = true;
      if (!self->outage_reported_)
        warning = std::string("TLS failure with the MQTT broker (") + text + "); connecting again.";
      self->outage_reported_ = true;
    }
  }
  self->changed_.notify_all();
  if (!warning.empty() && self->warn_)
    self->warn_(warning);
}

void MqttClient::on_publish(struct mosquitto*, void* data, int mid) {
  auto* self = static_cast<MqttClient*>(data);
  {
    std::lock_guard<std::mutex> hold(self->mutex_);
    self->queue_.acked(mid);
  }
  self->changed_.notify_all();
}

}  // namespace gpusift::mqtt
