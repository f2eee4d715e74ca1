// The sample's application: what the bake gave it, and what it would launch here.
#include <cstdio>

#include <ktune_tiny.hpp>

int main() {
  const ktune::BakedKernel& k = ktune_tiny::baked;
  std::printf("baked: %s\n", k.note);
  for (const ktune::BakedGpu& g : k.gpus)
    std::printf("table: %s sm_%d%d, %zu keys, common best %s\n", g.name, g.cc_major, g.cc_minor, g.entries.size(),
                k.configs[g.common_best].id);
  ktune_tiny::Config typed{.BLOCK = 64, .UNROLL = 1};  // one field per parameter
  std::printf("typed config: BLOCK=%lld UNROLL=%lld\n", static_cast<long long>(typed.BLOCK),
              static_cast<long long>(typed.UNROLL));
  try {
    std::printf("choice: %s\n", ktune_tiny::choice({}).describe().c_str());
  } catch (const ktune::Error& e) {
    std::printf("no launch here: %s\n", e.what());
  }
  return 0;
}
