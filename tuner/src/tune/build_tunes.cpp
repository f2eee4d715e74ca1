#include "ktune/build_tunes.hpp"

#include <fstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "ktune/error.hpp"
#include "ktune/files.hpp"

namespace ktune {
namespace fs = std::filesystem;

std::string tune_plan_json(const TunePlan& p) {
  nlohmann::json j = {{"keys", p.keys}, {"evaluations_per_key", p.evaluations_per_key}, {"seconds_per_key", nullptr}};
  if (p.seconds_per_key) j["seconds_per_key"] = *p.seconds_per_key;
  return j.dump(1) + "\n";
}

TunePlan read_tune_plan(const fs::path& file) {
  const nlohmann::json j = read_json_file(file.string());
  try {
    TunePlan p;
    p.keys = j.at("keys").get<std::size_t>();
    p.evaluations_per_key = j.at("evaluations_per_key").get<std::size_t>();
    if (!j.at("seconds_per_key").is_null()) p.seconds_per_key = j.at("seconds_per_key").get<double>();
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw Error(file.string() + ": not a tune plan: " + e.what());
  }
}

namespace {

// Ninja runs the step when its output is missing or older than an input.
bool still_to_run(const fs::path& dir) {
  std::error_code ec;
  const auto done = fs::last_write_time(dir / "tune.json", ec);
  if (ec) return true;
  for (const char* input : {"manifest.json", "cubins.json", "tune_plan.json"}) {
    const auto t = fs::last_write_time(dir / input, ec);
    if (!ec && t > done) return true;
  }
  return false;
}

}  // namespace

BuildTunes read_build_tunes(const fs::path& list, const fs::path& own_dir) {
  BuildTunes b;
  std::ifstream in(list);
  if (!in) return b;
  std::error_code ec;
  const fs::path own = fs::weakly_canonical(own_dir, ec);
  std::size_t done = 0;
  bool found = false;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    ++b.total;
    const fs::path dir = fs::weakly_canonical(line, ec);
    if (dir == own) {
      found = true;
      continue;
    }
    if (!still_to_run(dir)) {
      ++done;
      continue;
    }
    try {
      b.later.push_back(read_tune_plan(dir / "tune_plan.json"));
    } catch (const std::exception&) {  // no plan: counted, its work not estimated
    }
  }
  if (!found) return {};  // a list of another build
  b.position = done + 1;
  return b;
}

}  // namespace ktune
