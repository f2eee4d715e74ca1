// A path that names a directory where a file is wanted: the message says "is a directory"
// and names the path, never "not found", "check the path" or a C++ library's words.
#include <gtest/gtest.h>

#include "checks.hpp"
#include "kernel_dir.hpp"
#include "test_files.hpp"

namespace ktune::file_faults {
namespace {

namespace fs = std::filesystem;

TEST(DirectoryInputs, SayIsADirectory) {
  KernelDir k;
  const fs::path dir = k.root() / "a_directory.json";
  fs::create_directories(dir);
  const std::string d = dir.string();
  const std::vector<std::vector<std::string>> commands = {
      {"import", "--t4", d, "--into", (k.root() / "into").string(), "--kernel", "k", "--gpu", "NVIDIA H200"},
      {"simulate", "--cache", d, "--budget", "2", "--seed", "1"},
      {"simulate", "--t4", d, "--budget", "2", "--seed", "1"},
      {"simulate", "--db", d, "--budget", "2", "--seed", "1"},
      {"export", "--cache", d, "--format", "t4", "--out", (k.root() / "o.json").string()},
      {"export", "--db", d, "--format", "t4", "--out", (k.root() / "o.json").string()},
  };
  for (const auto& args : commands) {
    const ToolRun run = k.ktune(args);
    EXPECT_EQ(run.exit_code, 1) << run.command << "\n" << run.err;
    EXPECT_NE(run.err.find(d), std::string::npos) << run.command << "\n" << run.err;
    EXPECT_TRUE(run.err.find("is a directory") != std::string::npos ||
                run.err.find("Is a directory") != std::string::npos)
        << run.command << "\n"
        << run.err;
    for (const char* wrong : {"not found", "no such file", "check the path", "basic_filebuf"})
      EXPECT_EQ(run.err.find(wrong), std::string::npos) << run.command << "\n" << run.err;
    EXPECT_EQ(message_problem(run.err), "") << run.err;
  }
}

}  // namespace
}  // namespace ktune::file_faults
