#include "replay/compressed_file.hpp"

#include <fstream>
#include <iterator>
#include <limits>

#include <zlib.h>

#include "ktune/error.hpp"

namespace ktune {
namespace {
namespace gz_reader {

// A recorded space is tens of MB inflated; this bounds what a hostile file can make us
// allocate.
constexpr std::size_t kMaxInflated = std::size_t{2} << 30;
// Recorded caches inflate 3- to 5-fold (the benchmark hub's: 3.8, 4.7, 5.5); deflate's
// limit is about 1000-fold. Past 64 MiB, more than 100-fold is a gzip bomb, refused before
// it takes the full 2 GiB.
constexpr std::size_t kRatioFloor = std::size_t{64} << 20;
constexpr std::size_t kMaxRatio = 100;

bool has_gzip_magic(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Inflates every gzip member (gzip -c a >> f makes several) until the input is used up.
std::string inflate_all(const std::string& in, const std::string& name) {
  z_stream z{};
  // 16 + MAX_WBITS: gzip header and trailer (CRC and length checked by zlib).
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
    throw Error(name + ": cannot start gzip decompression (zlib: out of memory?)");
  std::string out;
  char buf[1 << 16];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() > kMaxInflated) {
      inflateEnd(&z);
      throw Error(name + ": inflates to more than 2 GiB; not a recorded tuning cache");
    }
    if (out.size() > kRatioFloor && out.size() / kMaxRatio > in.size()) {
      inflateEnd(&z);
      throw Error(name + ": inflates more than " + std::to_string(kMaxRatio) + "-fold (" + std::to_string(in.size()) +
                  " bytes to over " + std::to_string(out.size() >> 20) +
                  " MiB so far): a gzip bomb, not a recorded tuning cache (those inflate about 5-fold)");
    }
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      if (inflateReset(&z) != Z_OK) break;  // next member
      continue;
    }
    if (rc == Z_OK) continue;
    // Z_BUF_ERROR with no input left: the stream stopped before its end.
    const std::string why =
        rc == Z_BUF_ERROR && z.avail_in == 0
            ? "the gzip stream is truncated (it ends before its last block)"
            : std::string("the gzip data is damaged (zlib: ") + (z.msg ? z.msg : "error " + std::to_string(rc)) + ")";
    inflateEnd(&z);
    throw Error(name + ": " + why + "; fetch or copy the file again");
  }
  inflateEnd(&z);
  return out;
}

}  // namespace gz_reader
}  // namespace

std::string read_maybe_gzip(const std::filesystem::path& path) {
  const std::string name = path.string();
  // A directory opens and then fails to read with a message that names no file.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(name + ": is a directory; give the file in it");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(name + ": cannot open the file; check the path");
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw Error(name + ": read error");
  if (bytes.size() > std::numeric_limits<uInt>::max())
    throw Error(name + ": larger than 4 GiB; not a recorded tuning cache");
  if (gz_reader::has_gzip_magic(bytes)) return gz_reader::inflate_all(bytes, name);
  if (path.extension() == ".gz") throw Error(name + ": the name ends in .gz but the file is not gzip-compressed");
  return bytes;
}

}  // namespace ktune
