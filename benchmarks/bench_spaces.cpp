// The space engine on real and large spaces, on the machine it runs on:
//  1. counting: Kernel Tuner's benchmark spaces (T1 specs), median of 5 enumerations,
//     against python-constraint2's published times for spaces of the same shapes;
//  2. a space of 940,896 valid configs (product 32^6): planning (make_plan, as configure
//     runs it), the manifest's size, reading it back, and a budgeted search of 2,000
//     proposals over it, each in its own process so that its peak memory is its own.
// usage: bench_spaces <ktune source dir> <benchmark_hub dir>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ktune/build_plan.hpp"
#include "ktune/manifest.hpp"
#include "ktune/strategy.hpp"
#include "ktune/t1_spec.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_of(const std::function<void()>& body) {
  const auto start = Clock::now();
  body();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median_seconds(int runs, const std::function<void()>& body) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) t.push_back(seconds_of(body));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Runs `body` in a child process; returns its peak resident memory in MiB (or -1).
double peak_mib_of(const std::function<void()>& body) {
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid == 0) {
    body();
    std::fflush(stdout);
    ::_exit(0);
  }
  int status = 0;
  rusage usage{};
  if (::wait4(pid, &status, 0, &usage) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return usage.ru_maxrss / 1024.0;  // KiB on Linux
}

struct Reference {
  const char* spec;             // relative to its directory
  bool shared;                  // in benchmark_hub (else benchmarks/spaces)
  double python_constraint2_s;  // published time for the same space (ICPP'25)
};

ktune::PlanRequest big_request() {
  ktune::PlanRequest r;
  r.kernel = "big";
  r.source = "big.cu";
  r.params = {"A=1..32", "B=1..32", "C=1..32", "D=1..32", "E=1..32", "F=1..32"};
  r.constraints = {"A + B <= 12", "C + D <= 12", "E * F <= 64"};
  r.default_text = "A=1 B=1 C=1 D=1 E=1 F=1";
  r.keys = {"N=1000"};
  r.compile = {"nvcc", "90", {"-O3"}, {}};
  r.tuned = true;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: bench_spaces <ktune source dir> <benchmark_hub dir>\n");
    return 2;
  }
  const fs::path source = argv[1], hub = argv[2];

  std::printf("1. Counting valid configs (Space::enumerate, median of 5 runs)\n");
  std::printf("%-24s %12s %10s %12s %18s %8s\n", "space", "product", "valid", "ktune (s)", "python-constraint2",
              "ratio");
  const Reference refs[] = {{"hotspot.T1.json", false, 2.68},
                            {"microhh.T1.json", false, 1.16},
                            {"dedispersion_milo.T1.json", true, 0.117},
                            {"convolution_milo.T1.json", true, -1}};
  for (const auto& ref : refs) {
    const fs::path file = ref.shared ? hub / ref.spec : source / "benchmarks" / "spaces" / ref.spec;
    const auto spec = ktune::read_t1_spec(ktune::read_json_file(file), file.string());
    const ktune::Space space = spec.space();
    std::size_t valid = 0;
    const double s = median_seconds(5, [&] { valid = space.enumerate().size(); });
    if (ref.python_constraint2_s > 0)
      std::printf("%-24s %12llu %10zu %12.4f %17.3fs %7.0fx\n", ref.spec,
                  static_cast<unsigned long long>(space.product()), valid, s, ref.python_constraint2_s,
                  ref.python_constraint2_s / s);
    else
      std::printf("%-24s %12llu %10zu %12.4f %18s %8s\n", ref.spec, static_cast<unsigned long long>(space.product()),
                  valid, s, "-", "-");
  }
  std::printf(
      "python-constraint2: the times its paper reports (its own machine) for hotspot (22.2 M -> 349,853),\n"
      "MicroHH (1.17 M -> 138,600) and dedispersion (22,272 -> 11,130).\n\n");

  std::printf("2. A space of 940,896 valid configs, product 32^6 (each phase in its own process)\n");
  const fs::path dir = fs::temp_directory_path() / ("ktune_bench_spaces_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const double plan_mib = peak_mib_of([&] {
    ktune::Plan plan;
    const double s = seconds_of([&] { plan = ktune::make_plan(big_request()); });
    const std::string text = plan.manifest.to_json().dump(1) + "\n";
    ktune::write_file_atomic(dir / "manifest.json", text);
    const std::string edges = ktune::cmake_edges(plan.manifest, dir, "/usr/bin/ktune");
    std::printf("plan (enumerate, DEFAULT, search): %.3f s; %zu valid; manifest %zu bytes, configs.cmake %zu bytes\n",
                s, plan.manifest.configs.size(), text.size(), edges.size());
    std::printf("search: %s\n", plan.search.why.c_str());
  });
  std::printf("plan peak memory: %.1f MiB\n", plan_mib);
  const double tune_mib = peak_mib_of([&] {
    ktune::Manifest m;
    const double read_s =
        seconds_of([&] { m = ktune::Manifest::from_json(ktune::read_json_file(dir / "manifest.json"), "manifest"); });
    const ktune::SearchSpace space(m.spec.parameters, m.configs.enumeration());
    auto strategy = ktune::make_strategy("default", {space, m.default_index(), 1, std::size_t{2000}});
    // Measurements made up from the values: a smooth cost with a minimum inside the space.
    std::size_t proposed = 0;
    const double search_s = seconds_of([&] {
      for (;;) {
        auto batch = strategy->propose(16);
        if (batch.empty()) break;
        for (std::size_t i : batch) {
          double cost = 1;
          for (std::size_t k = 0; k < space.width(); ++k) cost += std::pow(space.value(i, k) - 5.0, 2);
          strategy->observe({i, ktune::Status::Ok, cost});
        }
        proposed += batch.size();
      }
    });
    std::printf("tuner: manifest read and enumerated in %.3f s; %s proposed %zu configs (batches of 16) in %.3f s\n",
                read_s, ktune::default_strategy_name().c_str(), proposed, search_s);
  });
  std::printf("tuner peak memory: %.1f MiB\n", tune_mib);
  fs::remove_all(dir);
  return 0;
}
