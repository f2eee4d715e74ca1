#include "ktune/harness.hpp"

#include <cmath>
#include <exception>
#include <thread>

namespace ktune {
namespace {

// splitmix64: a fixed, portable generator, so a seed gives the same inputs everywhere.
uint64_t next(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

int64_t Harness::key(const std::string& name) const {
  auto it = key_.find(name);
  if (it != key_.end()) return it->second;
  std::string known;
  for (const auto& [n, v] : key_) known += (known.empty() ? "" : ", ") + n;
  throw Error("harness asks for key dimension '" + name + "', but the key has only " +
              (known.empty() ? std::string("none") : known) + "; check KEYS and the harness");
}

void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body) {
  const std::size_t threads = std::min<std::size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    if (n) body(0, n);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(threads);
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        body(n * t / threads, n * (t + 1) / threads);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

template <typename T>
void fill_values(std::span<T> out, const Fill& f) {
  switch (f.kind) {
    case Fill::Kind::Constant:
      for (T& v : out) v = static_cast<T>(f.value);
      return;
    case Fill::Kind::Random: {
      uint64_t state = f.seed;
      for (T& v : out) {
        double unit = static_cast<double>(next(state) >> 11) * 0x1.0p-53;  // [0, 1)
        double x = f.lo + unit * (f.hi - f.lo);
        v = static_cast<T>(std::is_integral_v<T> ? std::floor(x) : x);
      }
      return;
    }
    case Fill::Kind::Data:
      if (!f.data || f.data->size() != out.size_bytes())
        throw Error("fill::data gives " + std::to_string(f.data ? f.data->size() : 0) + " bytes for a buffer of " +
                    std::to_string(out.size_bytes()) + "; give exactly one value per element");
      std::memcpy(out.data(), f.data->data(), out.size_bytes());
      return;
  }
}

#define KTUNE_HARNESS_TYPE(T, name)                        \
  template void fill_values<T>(std::span<T>, const Fill&); \
  template <>                                              \
  std::string type_name<T>() {                             \
    return name;                                           \
  }
KTUNE_HARNESS_TYPE(float, "float")
KTUNE_HARNESS_TYPE(double, "double")
KTUNE_HARNESS_TYPE(int8_t, "int8")
KTUNE_HARNESS_TYPE(uint8_t, "uint8")
KTUNE_HARNESS_TYPE(int16_t, "int16")
KTUNE_HARNESS_TYPE(uint16_t, "uint16")
KTUNE_HARNESS_TYPE(int32_t, "int32")
KTUNE_HARNESS_TYPE(uint32_t, "uint32")
KTUNE_HARNESS_TYPE(int64_t, "int64")
KTUNE_HARNESS_TYPE(uint64_t, "uint64")
KTUNE_HARNESS_TYPE(half, "half")
KTUNE_HARNESS_TYPE(bfloat16, "bfloat16")
#undef KTUNE_HARNESS_TYPE

}  // namespace ktune
