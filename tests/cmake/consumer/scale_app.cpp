// The consumer's application: links ktune::scale and asks it which config this machine
// gets for a key. Without a GPU (or driver) it says so and exits 0: it linked and ran.
#include <cstdio>

#include <ktune_scale.hpp>

int main() {
  std::printf("baked: %s\n", ktune_scale::baked.note);
  const ktune_scale::Config typed{.BLOCK = 64, .UNROLL = 1};
  std::printf("default: BLOCK=%lld UNROLL=%lld\n", static_cast<long long>(typed.BLOCK),
              static_cast<long long>(typed.UNROLL));
  try {
    std::printf("choice: %s\n", ktune_scale::choice({.N = 100000}).describe().c_str());
  } catch (const ktune::Error& e) {
    std::printf("no GPU here: %s\n", e.what());
  }
  return 0;
}
