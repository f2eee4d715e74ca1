#pragma once
// 16-bit floating-point values as the GPU stores them (IEEE fp16 and bfloat16), for host
// code: harness buffers, host references, applications. Conversions round to nearest even,
// as __float2half_rn and __float2bfloat16_rn do. A Buffer<ktune::half> passes to a kernel
// taking `const __half*` (same size and bits).
#include <bit>
#include <cstdint>

namespace ktune {

// A 16-bit float of a given Format (from_float, to_float): the storage, the conversions
// and nothing else; arithmetic happens in float.
template <typename Format>
struct Float16 {
  uint16_t bits = 0;
  Float16() = default;
  explicit Float16(float f) : bits(Format::from_float(f)) {}
  explicit Float16(double d) : Float16(static_cast<float>(d)) {}
  explicit operator float() const { return Format::to_float(bits); }
  explicit operator double() const { return Format::to_float(bits); }
  static Float16 from_bits(uint16_t b) {
    Float16 h;
    h.bits = b;
    return h;
  }
};

// IEEE binary16: 5 exponent bits, 10 mantissa bits.
struct Fp16Format {
  static uint16_t from_float(float f) {
    const uint32_t u = std::bit_cast<uint32_t>(f);
    const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
    const uint32_t mag = u & 0x7FFFFFFFu;
    if (mag > 0x7F800000u) return sign | 0x7E00u;   // NaN: a quiet NaN
    if (mag >= 0x477FF000u) return sign | 0x7C00u;  // rounds to at least 65520: inf
    if (mag < 0x38800000u) {                        // below 2^-14: subnormal or 0
      if (mag < 0x33000000u) return sign;           // below 2^-25: rounds to 0
      const uint32_t exp = mag >> 23, mant = (mag & 0x7FFFFFu) | 0x800000u;
      const uint32_t shift = 126 - exp;  // 14..24 + 1 for the hidden bit
      uint32_t h = mant >> shift;
      const uint32_t rest = mant & ((1u << shift) - 1), half_way = 1u << (shift - 1);
      if (rest > half_way || (rest == half_way && (h & 1u))) ++h;
      return sign | static_cast<uint16_t>(h);
    }
    // Normal: rebias the exponent (127 -> 15), keep 10 mantissa bits, round to nearest even.
    uint32_t h = ((mag - 0x38000000u) >> 13);
    const uint32_t rest = mag & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent: fine
    return sign | static_cast<uint16_t>(h);
  }
  static float to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
    if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mant << 13));
    if (exp != 0) return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
    // Subnormal (or zero): mant x 2^-24, exact in float.
    const float v = static_cast<float>(mant) * 0x1.0p-24f;
    return sign ? -v : v;
  }
};

// bfloat16: float's 8 exponent bits, 7 mantissa bits.
struct Bf16Format {
  static uint16_t from_float(float f) {
    const uint32_t u = std::bit_cast<uint32_t>(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
    return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);  // nearest even; overflow gives inf
  }
  static float to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }
};

using half = Float16<Fp16Format>;
using bfloat16 = Float16<Bf16Format>;

static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2);

}  // namespace ktune
