#pragma once
// The harness: what the user writes, once per kernel, to tune it. For one key it makes
// the inputs, names the outputs and how to check them, and gives the launch template.
//
//   #include <ktune/harness.hpp>
//   #include "sgemm_launch.hpp"
//
//   void ktune_harness(ktune::Harness& h) {
//     const int M = h.key("M"), N = h.key("N"), K = h.key("K");
//     auto A = h.input<float>(size_t(M) * K, ktune::fill::random(1));
//     auto B = h.input<float>(size_t(K) * N, ktune::fill::random(2));
//     auto C = h.output<float>(size_t(M) * N);
//     h.expect(C, [&](std::span<float> ref) { /* C = A * B on the host, from h.host(A) ... */ });
//     h.launch(sgemm_launch(A, B, C, M, N, K));
//   }
//
// Outputs are reset to their fill before every launch, so kernels that accumulate or work
// in place do the same work each time. Every config's outputs are compared with the
// expectation before its time counts. The expectation comes from host code (expect, with
// parallel_for for speed) or from a trusted GPU path such as cuBLAS (expect_on_device).
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "ktune/half.hpp"
#include "ktune/launch.hpp"

namespace ktune {

// How a buffer starts: random values with a seed (uniform in [lo, hi); integers too),
// a constant, or the user's data. Random fills are the same on every machine.
struct Fill {
  enum class Kind { Random, Constant, Data };
  Kind kind = Kind::Constant;
  uint64_t seed = 0;
  double lo = -1.0, hi = 1.0, value = 0.0;
  std::shared_ptr<const std::vector<std::byte>> data;
};

namespace fill {
inline Fill random(uint64_t seed, double lo = -1.0, double hi = 1.0) {
  return {Fill::Kind::Random, seed, lo, hi, 0.0, nullptr};
}
inline Fill constant(double value) { return {Fill::Kind::Constant, 0, 0, 0, value, nullptr}; }
template <typename T>
Fill data(const std::vector<T>& values) {
  auto bytes = std::make_shared<std::vector<std::byte>>(values.size() * sizeof(T));
  std::memcpy(bytes->data(), values.data(), bytes->size());
  return {Fill::Kind::Data, 0, 0, 0, 0.0, bytes};
}
}  // namespace fill

// An output matches when |out - ref| <= abs + rel * |ref| for every element.
struct Tolerance {
  double abs = 0;
  double rel = 0;
};

// What a harness buffer may hold: arithmetic types and the 16-bit floats of ktune/half.hpp.
template <typename T>
constexpr bool is_buffer_type = std::is_arithmetic_v<T> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

template <typename T>
constexpr Tolerance default_tolerance() {
  // A few units in the last place of each type: fp16 has 11 significant bits, bf16 8.
  if constexpr (std::is_same_v<T, half>)
    return {1e-3, 4e-3};
  else if constexpr (std::is_same_v<T, bfloat16>)
    return {1e-2, 3e-2};
  else if constexpr (std::is_same_v<T, float>)
    return {1e-5, 1e-4};
  else if constexpr (std::is_same_v<T, double>)
    return {1e-12, 1e-10};
  else
    return {0, 0};  // integers: exact
}

// A device buffer the harness owns; passes its device pointer as a kernel argument.
template <typename T>
struct Buffer {
  CUdeviceptr ptr = 0;
  std::size_t size = 0;  // elements
  int index = -1;        // in the harness
  CUdeviceptr kernel_arg() const { return ptr; }
  T* data() const { return reinterpret_cast<T*>(ptr); }  // for GPU libraries (cuBLAS)
  operator CUdeviceptr() const { return ptr; }
};

class Harness {
 public:
  // One buffer, type-erased: the harness keeps host values, the device copy and, for
  // outputs, a pristine device copy to reset from and a comparison.
  struct Slot {
    std::string type;  // "float", "int32", ...
    std::size_t bytes = 0;
    std::size_t elements = 0;
    bool output = false;
    std::vector<std::byte> host;      // the fill's values
    std::vector<std::byte> expected;  // outputs with an expectation
    Tolerance tolerance;
    CUdeviceptr device = 0;
    CUdeviceptr pristine = 0;  // outputs: the fill, to reset from
    // Largest error and count of elements beyond tolerance, of `got` against `expected`.
    std::function<std::pair<double, std::size_t>(const std::byte* got, const std::byte* ref, std::size_t n,
                                                 Tolerance tol)>
        compare;
    std::function<void(std::vector<std::byte>& host)> make_host;  // sizes `host` and fills it
  };

  explicit Harness(std::map<std::string, int64_t> key) : key_(std::move(key)) {}
  virtual ~Harness() = default;

  // The key's value of `name`; throws Error naming the key's dimensions.
  int64_t key(const std::string& name) const;
  const std::map<std::string, int64_t>& key_values() const { return key_; }
  // True while the build checks the launch template on the host (no GPU; buffers hold no
  // values and references are not computed): a harness that makes GPU resources of its own
  // outside expect_on_device() skips them then.
  bool checking_only() const { return checking_only_; }

  template <typename T>
  Buffer<T> input(std::size_t n, Fill f) {
    return add<T>(n, f, false, {});
  }
  template <typename T>
  Buffer<T> output(std::size_t n, Fill f = fill::constant(0), Tolerance tol = default_tolerance<T>()) {
    return add<T>(n, f, true, tol);
  }
  // The values a buffer was filled with, for host references.
  template <typename T>
  std::span<const T> host(Buffer<T> b) const {
    Slot& s = slots_.at(b.index);
    if (s.host.size() != s.bytes) s.make_host(s.host);  // a launch check makes them only when asked
    return {reinterpret_cast<const T*>(s.host.data()), s.elements};
  }
  // The expected content of `out`, computed on the host once per key. `ref` starts as
  // the output's fill (kernels that accumulate add to it).
  template <typename T, typename F>
  void expect(Buffer<T> out, F&& reference) {
    Slot& s = slots_.at(out.index);
    if (!s.output) throw Error("Harness::expect: the buffer is an input; declare it with output<T>()");
    if (checking_only_) return;
    s.expected = s.host;
    reference({reinterpret_cast<T*>(s.expected.data()), s.elements});
  }
  // The expected content of `out`, computed on the GPU by code you trust (cuBLAS, a plain
  // kernel) once per key: `reference(ref, stream)` writes into `ref`, a device buffer
  // like `out` that starts as its fill, with work queued on `stream` (or synchronous).
  // Link the tuner target with that library, e.g. CUDA::cublas.
  template <typename T, typename F>
  void expect_on_device(Buffer<T> out, F&& reference) {
    Slot& s = slots_.at(out.index);
    if (!s.output) throw Error("Harness::expect_on_device: the buffer is an input; declare it with output<T>()");
    if (checking_only_) return;
    s.expected = s.host;
    compute_on_device(s, [&](CUdeviceptr ref, CUstream stream) { reference(Buffer<T>{ref, s.elements, -1}, stream); });
  }
  void launch(LaunchTemplate t) { launch_ = std::move(t); }
  // Copies `b`'s values into the kernel's __constant__ (or __device__) variable `symbol`
  // in every config's module after loading it, before it runs (Kernel Tuner's cmem_args).
  // The variable must be at least as large as `b`.
  template <typename T>
  void constant(const std::string& symbol, Buffer<T> b) {
    if (b.index < 0) throw Error("Harness::constant: give a buffer made by input<T>() or output<T>()");
    constants_.push_back({symbol, b.index});
  }
  struct ConstantCopy {
    std::string symbol;
    int slot = -1;  // the buffer whose host values are copied
  };
  const std::vector<ConstantCopy>& constants() const { return constants_; }

  const std::vector<Slot>& slots() const { return slots_; }
  std::vector<Slot>& slots() { return slots_; }
  const LaunchTemplate& launch_template() const { return launch_; }

 protected:
  // A launch check (launch_check.hpp) runs the harness on the host alone: buffers get no
  // values unless host() asks for them, and no reference is computed.
  bool checking_only_ = false;
  // Device side, provided by the tuner's worker (allocation and upload).
  virtual void upload(Slot& s) = 0;
  // Runs `reference` on a device copy of s.host and reads the result into s.expected.
  virtual void compute_on_device(Slot& s, const std::function<void(CUdeviceptr, CUstream)>& reference) = 0;

 private:
  template <typename T>
  Buffer<T> add(std::size_t n, const Fill& f, bool output, Tolerance tol);

  std::map<std::string, int64_t> key_;
  mutable std::vector<Slot> slots_;  // mutable: host() may make a checked harness's values
  LaunchTemplate launch_;
  std::vector<ConstantCopy> constants_;
};

// Calls body(begin, end) on disjoint ranges covering [0, n), on all cores: host references
// of big problems (a GEMM) take seconds on one.
void parallel_for(std::size_t n, const std::function<void(std::size_t begin, std::size_t end)>& body);

// Fills `out` (n elements of T) as `f` says. Throws Error when user data has the wrong size.
template <typename T>
void fill_values(std::span<T> out, const Fill& f);

template <typename T>
std::string type_name();

template <typename T>
Buffer<T> Harness::add(std::size_t n, const Fill& f, bool output, Tolerance tol) {
  static_assert(is_buffer_type<T>, "harness buffers hold arithmetic types, ktune::half or ktune::bfloat16");
  if (n == 0) throw Error("Harness: a buffer of 0 elements; check the key's sizes");
  Slot s;
  s.type = type_name<T>();
  s.elements = n;
  s.bytes = n * sizeof(T);
  s.output = output;
  s.tolerance = tol;
  s.make_host = [f, n](std::vector<std::byte>& host) {
    host.resize(n * sizeof(T));
    fill_values<T>({reinterpret_cast<T*>(host.data()), n}, f);
  };
  // A launch check skips making values, but not checking the user's own data's size.
  if (!checking_only_ || f.kind == Fill::Kind::Data) s.make_host(s.host);
  // Branch-free so that it vectorises: every config's output is checked, on every key.
  s.compare = [](const std::byte* got, const std::byte* ref, std::size_t count, Tolerance t) {
    double worst = 0;
    std::size_t bad = 0;
    auto g = reinterpret_cast<const T*>(got);
    auto r = reinterpret_cast<const T*>(ref);
    for (std::size_t i = 0; i < count; ++i) {
      const double gv = static_cast<double>(g[i]), rv = static_cast<double>(r[i]);
      const double err = std::fabs(gv - rv);
      bad += !(err <= t.abs + t.rel * std::fabs(rv));  // NaN counts as bad
      worst = std::max(worst, err);                    // NaN leaves it unchanged
    }
    if (bad > 0 && worst == 0) worst = INFINITY;  // only NaNs were wrong
    return std::make_pair(worst, bad);
  };
  slots_.push_back(std::move(s));
  upload(slots_.back());
  return Buffer<T>{slots_.back().device, n, static_cast<int>(slots_.size() - 1)};
}

}  // namespace ktune

// Defined by the user, once per kernel, in the file named by HARNESS.
void ktune_harness(ktune::Harness& h);
