#pragma once
// 64-bit FNV-1a, for digests of what makes a result stale (kernel hash, fingerprint,
// compile command). Every field goes in with its length first, so "ab"+"c" and "a"+"bc"
// hash differently and the canonical form needs no escaping.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace ktune {

class Fnv1a {
 public:
  void bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
      state_ ^= p[i];
      state_ *= 0x100000001b3ull;
    }
  }
  void number(uint64_t v) {
    unsigned char le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(v >> (8 * i));
    bytes(le, sizeof le);
  }
  void field(std::string_view text) {
    number(text.size());
    bytes(text.data(), text.size());
  }
  std::string hex() const {
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(state_));
    return out;
  }

 private:
  uint64_t state_ = 0xcbf29ce484222325ull;
};

}  // namespace ktune
