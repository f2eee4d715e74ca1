#include "ktune/fingerprint.hpp"
#include "ktune/fnv1a.hpp"
#include "ktune/depfile.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/untrusted_json.hpp"
#include "ktune/error.hpp"
#include "ktune/manifest.hpp"
#include "ktune/text.hpp"

namespace ktune {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using untrusted_json::text_field;

// The whole file, or nullopt when there is no regular file at `path`.
std::optional<std::string> read_bytes(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  std::string data;
  if (in) {
    auto size = fs::file_size(path, ec);
    if (!ec) data.reserve(size);
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (!in && !in.eof()) throw Error(path.string() + ": cannot read it to hash the kernel; check its permissions");
  return data;
}

// The depfiles of all configs usually list the same headers and differ only in the
// target; parse each distinct list once.
std::string_view after_first_rule_colon(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == ':' && (i + 1 == text.size() || std::isspace(uint8_t(text[i + 1])))) return text.substr(i + 1);
  return text;
}

}  // namespace

std::string Fingerprint::digest() const {
  Fnv1a h;
  h.field("ktune.fingerprint.v1");
  h.field(kernel_hash);
  h.field(nvcc_version);
  h.field(gpu.name);
  h.number(static_cast<uint64_t>(gpu.cc_major));
  h.number(static_cast<uint64_t>(gpu.cc_minor));
  h.number(static_cast<uint64_t>(gpu.sm_count));
  h.number(static_cast<uint64_t>(gpu.driver_version));
  return h.hex();
}

json Fingerprint::to_json() const {
  return {{"kernel_hash", kernel_hash}, {"nvcc_version", nvcc_version}, {"gpu", gpu.to_json()}};
}

Fingerprint Fingerprint::from_json(const json& j) {
  const char* where = "fingerprint";
  if (!j.is_object()) throw Error("fingerprint: must be an object, got " + json_excerpt(j));
  Fingerprint fp;
  fp.kernel_hash = text_field(j, "kernel_hash", where);
  fp.nvcc_version = text_field(j, "nvcc_version", where);
  fp.gpu = GpuIdentity::from_json(untrusted_json::field(j, "gpu", where));
  return fp;
}

std::set<std::string> compiled_inputs(const fs::path& kernel_dir) {
  std::set<std::string> inputs;
  std::unordered_set<std::string> seen_lists;  // configs mostly list the same files
  std::error_code ec;
  for (fs::directory_iterator it(kernel_dir / "deps", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".d") continue;
    auto text = read_bytes(it->path());
    if (!text) continue;
    if (!seen_lists.insert(std::string(after_first_rule_colon(*text))).second) continue;
    add_depfile_inputs(*text, inputs);
  }
  return inputs;
}

// Before the first build there is no depfile: the hash then covers the source and the
// settings only, and changes once the DEFAULT's cubin is built and lists its headers. The
// tune and bake steps run after that cubin, so they always see the full hash.
std::string kernel_hash(const std::string& manifest_path) { return kernel_hash(manifest_path, ""); }

std::string kernel_hash(const std::string& manifest_path, const std::string& arch_or_empty) {
  const fs::path manifest_file(manifest_path);
  Manifest m;
  try {
    m = Manifest::from_json(read_json_file(manifest_file), manifest_path);
  } catch (const json::exception& e) {  // what read_json_file lets through, e.g. 1e999
    throw Error(manifest_path + ": not a readable manifest (" + e.what() + "); reconfigure the build to regenerate it");
  }
  const fs::path dir = manifest_file.parent_path();
  // nvcc writes absolute paths for an absolute source; anything else is taken as
  // relative to the manifest.
  auto resolve = [&](const std::string& p) { return fs::path(p).is_absolute() ? fs::path(p) : dir / p; };

  // Where the tree lives is no input of a measurement: the hash covers contents, not paths,
  // so a DB tuned in one checkout (or shipped in the project) matches another. Headers of
  // the CUDA toolkit and the system are left out too; the nvcc version is a field of the
  // fingerprint itself.
  Fnv1a h;
  h.field("ktune.kernel_hash.v2");
  h.field(fs::path(m.source).filename().string());
  auto source = read_bytes(resolve(m.source));
  if (!source) {
    std::error_code ec;
    const bool directory = fs::is_directory(resolve(m.source), ec);
    throw Error(manifest_path + ": the kernel source " + untrusted_json::printable(m.source, 200) +
                (directory ? " is a directory" : " does not exist") +
                "; fix SOURCE in ktune_add_kernel() or restore the file");
  }
  h.field(*source);

  // The architecture the measured cubins were for, not the list the build bakes: a DB of an
  // A100 matches every build that lists 80, whatever else it lists.
  h.field(arch_or_empty.empty() ? m.compile.arch : arch_or_empty);
  h.number(m.compile.flags.size());
  for (const auto& f : m.compile.flags) h.field(f);
  h.number(m.spec.parameters.size());
  for (const auto& p : m.spec.parameters) {
    h.field(p.name);
    h.number(p.values.size());
    for (int64_t v : p.values) h.number(static_cast<uint64_t>(v));
  }
  h.number(m.spec.constraints.size());
  for (const auto& c : m.spec.constraints) h.field(c);

  // The headers of the DEFAULT's compile only: every build makes that cubin before it tunes
  // or bakes, and the hash must not move while the tuner compiles other configs on demand (a
  // failed compile's stand-in depfile lists every file of the source directory).
  std::set<std::string> headers;
  if (auto text = read_bytes(dir / ManifestConfig{m.default_id}.depfile())) add_depfile_inputs(*text, headers);
  const fs::path toolkit = fs::path(m.compile.nvcc).parent_path().parent_path();
  auto is_system = [&](const fs::path& p) {
    const std::string s = p.lexically_normal().string();
    auto under = [&](const fs::path& root) {
      const std::string r = root.lexically_normal().string();
      return !r.empty() && r != "/" && r != "." && s.rfind(r + "/", 0) == 0;
    };
    return under(toolkit) || under("/usr/include") || under("/usr/lib") || under("/usr/local/cuda");
  };
  // Each header as the hash of its name and contents, sorted: independent of directories
  // and of the order nvcc lists them.
  std::set<std::string> header_digests;
  for (const auto& header : headers) {
    const fs::path path = resolve(header);
    if (path == resolve(m.source) || is_system(path)) continue;
    auto bytes = read_bytes(path);  // a header gone since the last build: that build reruns
    Fnv1a one;
    one.field(path.filename().string());
    one.number(bytes ? 1 : 0);
    if (bytes) one.field(*bytes);
    header_digests.insert(one.hex());
  }
  h.number(header_digests.size());
  for (const auto& d : header_digests) h.field(d);
  return h.hex();
}

}  // namespace ktune
