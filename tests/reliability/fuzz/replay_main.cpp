// Runs a fuzz target's entry function once on every file of the directories given, so
// that the seed corpus and every crash fuzzing ever found stay tests in builds without
// clang or libFuzzer. A missing directory holds nothing; finding no input at all fails,
// because then the test would prove nothing.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_check.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " DIR...\n";
    return 2;
  }
  std::size_t total = 0;
  for (int a = 1; a < argc; ++a) {
    const fs::path dir = argv[a];
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.is_regular_file() && entry.path().filename().string()[0] != '.') files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      std::ifstream in(file, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (!in.good() && !in.eof()) {
        std::cerr << file.string() << ": cannot read\n";
        return 1;
      }
      // A buffer of exactly the input's size, as libFuzzer gives: an overread past its
      // end is then a heap overflow that AddressSanitizer sees.
      auto data = std::make_unique<uint8_t[]>(std::max<std::size_t>(bytes.size(), 1));
      std::copy(bytes.begin(), bytes.end(), data.get());
      std::cout << "replay " << file.string() << " (" << bytes.size() << " bytes)" << std::endl;
      LLVMFuzzerTestOneInput(data.get(), bytes.size());
      ++total;
    }
    std::cout << dir.string() << ": " << files.size() << " input(s)\n";
  }
  if (total == 0) {
    std::cerr << "no input found: the seed corpus is missing\n";
    return 1;
  }
  std::cout << "ok: " << total << " input(s) replayed\n";
  return 0;
}
