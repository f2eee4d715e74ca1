// The online-tuning cache (KTUNE_ONLINE=1: "kernel<TAB>GPU<TAB>key<TAB>config id" lines):
// whatever the file holds, reading it never crashes or hangs and takes only well-formed
// lines; the file is only ever appended to, and a choice stored after a line cut short
// reads back. (The dispatcher then launches a cached id only if the baked table has it.)
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include <sys/stat.h>

#include "dispatch/online_cache.hpp"
#include "temp_dir.hpp"
#include "test_files.hpp"

namespace ktune::file_faults {
namespace {

namespace fs = std::filesystem;
using test_support::read;
using test_support::TempDir;
using test_support::write;

const std::array<int64_t, 2> kKey{64, 128};
const std::string kGood = "sgemm\tNVIDIA H200\t64,128\t0123456789abcdef\n";

// Made when the case runs: the list is built in every run of the test program.
struct CacheFault {
  std::string name;
  std::string (*make)();
};

void PrintTo(const CacheFault& fault, std::ostream* out) { *out << fault.name; }

std::vector<CacheFault> cache_faults() {
  return {
      {"empty", [] { return std::string(); }},
      {"cut_in_the_id", [] { return kGood.substr(0, kGood.size() - 5); }},
      {"cut_in_the_key", [] { return kGood.substr(0, 22); }},
      {"binary",
       [] {
         std::string s;
         for (int i = 0; i < 4096; ++i) s += static_cast<char>(i * 131 % 256);
         return s;
       }},
      {"nul_bytes", [] { return std::string("sgemm\0\tNVIDIA H200\t64,128\t0123\0", 31) + "\n"; }},
      {"non_utf8", [] { return std::string("sgemm\t\xff\xfe\t64,128\t\xc0\xaf\n"); }},
      {"too_few_fields", [] { return std::string("sgemm\tNVIDIA H200\t64,128\n"); }},
      {"extra_fields", [] { return std::string("sgemm\tNVIDIA H200\t64,128\tid\textra\n"); }},
      {"crlf", [] { return std::string("sgemm\tNVIDIA H200\t64,128\tfedcba9876543210\r\n"); }},
      {"key_not_numbers", [] { return std::string("sgemm\tNVIDIA H200\t6e1,1.28e2\tfedcba9876543210\n"); }},
      {"hostile_strings",
       [] { return std::string("\"*/ #include <x>\t\"); system(\"rm -rf /\t64,128\t../../etc/passwd\n"); }},
      {"line_of_10mb", [] { return std::string(10 << 20, 'A') + "\n"; }},
      {"many_lines",
       [] {
         std::string s;
         for (int i = 0; i < 100000; ++i) s += "k\tg\t" + std::to_string(i) + "\tx\n";
         return s;
       }},
  };
}

class OnlineCacheFaults : public testing::TestWithParam<CacheFault> {};

TEST_P(OnlineCacheFaults, OnlyWellFormedLinesCount) {
  const CacheFault& fault = GetParam();
  const std::string text = fault.make();
  TempDir tmp("ktune_online_faults");
  const fs::path file = tmp.path() / "online.tsv";
  write(file, text);
  {
    OnlineCache cache(file.string());
    EXPECT_FALSE(cache.find("sgemm", "NVIDIA H200", kKey)) << "a damaged line was taken as a choice";
  }
  EXPECT_EQ(read(file), text) << "reading changed the file";

  // A good line before the damage and one after: both count.
  write(file, kGood + text);
  EXPECT_EQ(OnlineCache(file.string()).find("sgemm", "NVIDIA H200", kKey), "0123456789abcdef");
  OnlineCache(file.string()).store("sgemm", "NVIDIA H100", kKey, "00000000000000aa");
  EXPECT_EQ(read(file).substr(0, kGood.size() + text.size()), kGood + text) << "not only appended";
  const OnlineCache again(file.string());
  EXPECT_EQ(again.find("sgemm", "NVIDIA H100", kKey), "00000000000000aa");
  EXPECT_EQ(again.find("sgemm", "NVIDIA H200", kKey), "0123456789abcdef");
}

INSTANTIATE_TEST_SUITE_P(OnlineCache, OnlineCacheFaults, testing::ValuesIn(cache_faults()),
                         [](const testing::TestParamInfo<CacheFault>& info) { return info.param.name; });

// A line cut short used to swallow the next choice stored after it.
TEST(OnlineCacheFaultsBaseline, StoreAfterALineCutShortReadsBack) {
  TempDir tmp("ktune_online_faults");
  const fs::path file = tmp.path() / "online.tsv";
  write(file, "sgemm\tNVIDIA H200\t1,2\t01234");
  OnlineCache(file.string()).store("sgemm", "NVIDIA H200", kKey, "0123456789abcdef");
  EXPECT_EQ(OnlineCache(file.string()).find("sgemm", "NVIDIA H200", kKey), "0123456789abcdef");
  EXPECT_EQ(read(file), "sgemm\tNVIDIA H200\t1,2\t01234\t\n" + kGood);
  EXPECT_FALSE(OnlineCache(file.string()).find("sgemm", "NVIDIA H200", std::array<int64_t, 2>{1, 2}));
}

// Something other than a file where the cache should be: nothing read, nothing blocks.
TEST(OnlineCacheFaultsBaseline, DirectoryOrFifoInsteadOfTheFile) {
  TempDir tmp("ktune_online_faults");
  const fs::path dir = tmp.path() / "online.tsv";
  fs::create_directories(dir);
  OnlineCache in_dir(dir.string());
  EXPECT_FALSE(in_dir.find("sgemm", "NVIDIA H200", kKey));
  in_dir.store("sgemm", "NVIDIA H200", kKey, "0123456789abcdef");  // cannot write: no effect
  EXPECT_TRUE(fs::is_directory(dir));

  const fs::path fifo = tmp.path() / "fifo.tsv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  OnlineCache from_fifo(fifo.string());  // opening a FIFO for reading would wait for a writer
  EXPECT_FALSE(from_fifo.find("sgemm", "NVIDIA H200", kKey));
}

// Names a line could not hold are never written, so they cannot forge other lines.
TEST(OnlineCacheFaultsBaseline, NamesWithLineBreaksAreNotStored) {
  TempDir tmp("ktune_online_faults");
  const fs::path file = tmp.path() / "online.tsv";
  OnlineCache cache(file.string());
  cache.store("sgemm", "GPU\nsgemm\tNVIDIA H200\t64,128\tforged", kKey, "0123456789abcdef");
  cache.store("sgemm", "NVIDIA H200", kKey, "id\twith\ttabs");
  EXPECT_FALSE(fs::exists(file) && !read(file).empty());
  EXPECT_FALSE(OnlineCache(file.string()).find("sgemm", "NVIDIA H200", kKey));
}

}  // namespace
}  // namespace ktune::file_faults
