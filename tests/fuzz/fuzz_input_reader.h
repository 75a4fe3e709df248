// SPDX-License-Identifier: LGPL-2.1-or-later
// A fuzz input read front to back as the values a harness builds its case from. Past the end
// every value is zero, so that any input, however short, is a whole case: a mutation that cuts
// bytes then changes values rather than ending the case early.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace gpusift::fuzz {

class InputReader {
 public:
  InputReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  // The next sizeof(T) bytes as a T (trivially copyable), zeros past the end.
  template <class T>
  T take() {
    T value{};
    size_t n = 0;
    const uint8_t* at = take_bytes(sizeof(T), &n);
    if (n > 0)
      std::memcpy(&value, at, n);
    return value;
  }

  // The next `size` bytes, fewer where the input ends: *taken says how many.
  const uint8_t* take_bytes(size_t size, size_t* taken) {
    const uint8_t* at = data_ + used_;
    *taken = size_ - used_ < size ? size_ - used_ : size;
    used_ += *taken;
    return at;
  }

  // The next `size` bytes as text, cut at the first NUL.
  std::string take_text(size_t size) {
    size_t n = 0;
    const uint8_t* at = take_bytes(size, &n);
    const std::string text(reinterpret_cast<const char*>(at), n);
    return text.substr(0, text.find('\0'));
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t used_ = 0;
};

}  // namespace gpusift::fuzz
