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
// pointers to them that cuLaunchKernelEx takes.
class KernelArgs {
 public:
  KernelArgs() = default;
  template <typename... T>
  explicit KernelArgs(const T&... values) {
    (append(as_kernel_arg(values)), ...);
  }
  KernelArgs(const KernelArgs& o) : storage_(o.storage_), offsets_(o.offsets_) {}
  KernelArgs& operator=(const KernelArgs& o) {
    storage_ = o.storage_;
    offsets_ = o.offsets_;
    return *this;
  }

  std::size_t count() const { return offsets_.size(); }
  void** pointers() {
    pointers_.clear();
    for (std::size_t off : offsets_) pointers_.push_back(storage_.data() + off);
    return pointers_.data();
  }

 private:
  template <typename V>
  void append(const V& v) {
    static_assert(alignof(V) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "over-aligned kernel argument");
    std::size_t off = (storage_.size() + alignof(V) - 1) / alignof(V) * alignof(V);
    storage_.resize(off + sizeof(V));
    std::memcpy(storage_.data() + off, &v, sizeof(V));
    offsets_.push_back(off);
  }
  // The buffer comes from operator new, aligned to __STDCPP_DEFAULT_NEW_ALIGNMENT__ (16),
  // so offsets aligned within it are aligned in memory for any argument type up to 16.
  std::vector<std::byte> storage_;
  std::vector<std::size_t> offsets_;
  std::vector<void*> pointers_;
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
