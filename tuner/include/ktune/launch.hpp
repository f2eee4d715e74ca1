#pragma once
// The launch template: written once by the user as a function of the config, used by the
// tuner to measure every candidate and by the baked dispatcher to launch the winner.
//
//   inline auto sgemm_launch(CUdeviceptr A, CUdeviceptr B, CUdeviceptr C, int M, int N, int K) {
//     return [=](const ktune::Config& c) {
//       return ktune::Launch{.grid = {ktune::cdiv(N, c["TN"]), ktune::cdiv(M, c["TM"])},
//                            .block = {256}, .args = ktune::args(A, B, C, M, N, K)};
//     };
//   }
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "ktune/config.hpp"

namespace ktune {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t{x} * y * z; }
};

// Ceiling division for grid sizes: cdiv(1000, 128) == 8.
constexpr uint32_t cdiv(int64_t a, int64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

// Anything with kernel_arg() (a harness buffer) passes its device pointer.
template <typename T>
auto as_kernel_arg(const T& v) {
  if constexpr (requires { v.kernel_arg(); }) {
    return v.kernel_arg();
  } else {
    static_assert(std::is_trivially_copyable_v<T>, "kernel arguments must be trivially copyable");
    return v;
  }
}

// Kernel arguments by value, each aligned as its type requires, with the array of
// pointers to them that cuLaunchKernelEx takes. Held inline, without allocating, so that
// building a launch costs next to nothing beside the launch itself.
class KernelArgs {
 public:
  static constexpr std::size_t kMaxBytes = 512;
  static constexpr std::size_t kMaxArgs = 48;

  KernelArgs() = default;
  template <typename... T>
  explicit KernelArgs(const T&... values) {
    static_assert(sizeof...(T) <= kMaxArgs, "too many kernel arguments for ktune::KernelArgs");
    (append(as_kernel_arg(values)), ...);
  }
  KernelArgs(const KernelArgs& o) { *this = o; }
  KernelArgs& operator=(const KernelArgs& o) {
    size_ = o.size_;
    count_ = o.count_;
    std::memcpy(storage_, o.storage_, size_);
    std::memcpy(offsets_, o.offsets_, count_ * sizeof offsets_[0]);
    std::memcpy(sizes_, o.sizes_, count_ * sizeof sizes_[0]);
    return *this;
  }

  // One more argument, for argument lists known only at run time (a T1 spec's).
  template <typename V>
  void push(const V& v) {
    if (count_ == kMaxArgs)
      throw Error("more than " + std::to_string(kMaxArgs) + " kernel arguments; ktune::KernelArgs holds at most that");
    append(as_kernel_arg(v));
  }

  std::size_t count() const { return count_; }
  std::size_t size(std::size_t k) const { return sizes_[k]; }  // bytes of argument k
  void** pointers() {
    for (std::size_t k = 0; k < count_; ++k) pointers_[k] = storage_ + offsets_[k];
    return pointers_;
  }

 private:
  template <typename V>
  void append(const V& v) {
    // 128: a TMA descriptor (CUtensorMap, launch_resources.hpp) is the most aligned parameter.
    static_assert(alignof(V) <= 128, "over-aligned kernel argument");
    std::size_t off = (size_ + alignof(V) - 1) / alignof(V) * alignof(V);
    if (off + sizeof(V) > kMaxBytes)
      throw Error("kernel arguments exceed " + std::to_string(kMaxBytes) +
                  " bytes; pass large structs through device memory");
    std::memcpy(storage_ + off, &v, sizeof(V));
    offsets_[count_] = static_cast<uint16_t>(off);
    sizes_[count_++] = static_cast<uint16_t>(sizeof(V));
    size_ = off + sizeof(V);
  }
  alignas(128) std::byte storage_[kMaxBytes];
  uint16_t offsets_[kMaxArgs];
  uint16_t sizes_[kMaxArgs];
  void* pointers_[kMaxArgs];
  std::size_t size_ = 0;
  std::size_t count_ = 0;
};

template <typename... T>
KernelArgs args(const T&... values) {
  return KernelArgs(values...);
}

struct Launch {
  Dim3 grid;
  Dim3 block;
  uint32_t shared_bytes = 0;  // dynamic shared memory
  KernelArgs args;
};

using LaunchTemplate = std::function<Launch(const Config&)>;

}  // namespace ktune
