#include "ktune/db.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/untrusted_json.hpp"
#include "ktune/config_id.hpp"
#include "ktune/error.hpp"
#include "ktune/files.hpp"
#include "ktune/text.hpp"

namespace ktune {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using Stamp = std::array<int64_t, 5>;

Stamp stamp_of(const struct stat& st) {
  return {static_cast<int64_t>(st.st_dev), static_cast<int64_t>(st.st_ino), static_cast<int64_t>(st.st_size),
          static_cast<int64_t>(st.st_mtim.tv_sec), static_cast<int64_t>(st.st_mtim.tv_nsec)};
}

Stamp stamp_of(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? stamp_of(st) : Stamp{};
}

// Names from a hostile file can be megabytes long; messages stay one short line.
std::string shown_name(const std::string& s) { return untrusted_json::quoted(s); }

// Kernel names are C identifiers (ktune_add_kernel checks): they name files, targets and
// namespaces. Anything else in a DB is damage.
bool is_kernel_name(const std::string& s) { return s.size() <= 200 && is_c_identifier(s); }

json empty_doc(const std::string& kernel) {
  return {{"schema", "ktune.db"},
          {"schema_version", Db::kSchemaVersion},
          {"kernel", kernel},
          {"fingerprints", json::object()}};
}

// A config's values, kept for readers of the file: names to plain numbers or strings.
// Nested values are refused so that a hostile file cannot make dump() recurse deeply.
void check_values(const json& values) {
  if (!values.is_object()) throw Error("\"values\" must be an object of name: number");
  for (const auto& [name, v] : values.items())
    if (v.is_structured() || v.is_null())
      throw Error("\"values\"." + shown_name(name) + " must be a number or a string");
}

// An entry's id must be the id of its values: the bake launches the id's config while show,
// report, export, replay and merge go by the values, so an entry where they differ would be
// measured as one config and used as another.
void check_id(const std::string& id, const json& values) {
  const std::string expected = config_id_of(values);
  if (id != expected)
    throw Error("the id " + shown_name(id) + " is not the id of its values (" + expected +
                "): edited or damaged, so it is left out");
}

// Closing the descriptor releases the flock.
class LockFile {
 public:
  explicit LockFile(const fs::path& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      error_ = errno;
      fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // someone else's lock file
    }
  }
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;
  ~LockFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool opened() const { return fd_ >= 0; }
  int open_error() const { return error_; }
  // Blocks until granted. LOCK_EX on a shared lock converts it, not atomically.
  bool acquire(int op) {
    if (fd_ < 0) return false;
    while (::flock(fd_, op) != 0) {
      if (errno != EINTR) return false;
    }
    return true;
  }

 private:
  int fd_ = -1;
  int error_ = 0;
};

fs::path with_suffix(const fs::path& path, const std::string& suffix) {
  fs::path out = path;
  out += suffix;
  return out;
}

// What the file on disk holds, normalized: entries rebuilt from their parsed form, so
// the in-memory document holds nothing that Measurement or Fingerprint would refuse.
struct Snapshot {
  bool exists = false;
  json doc;
  std::string corrupt;  // why the whole file cannot be trusted; empty when it can
  std::string skipped;  // entries dropped from an otherwise good file
  std::size_t skipped_count = 0;
  std::string first_skipped;
  Stamp stamp{};
};

class Normalizer {
 public:
  explicit Normalizer(const std::string& kernel) : kernel_(kernel) {}

  // Throws Error with the reason when the file as a whole is not a DB for this kernel.
  json run(const json& raw) {
    if (!raw.is_object()) throw Error("it is not a JSON object");
    auto schema = raw.find("schema");
    if (schema == raw.end() || !schema->is_string() || *schema != "ktune.db")
      throw Error("it is not a ktune DB (\"schema\" is not \"ktune.db\")");
    auto version = raw.find("schema_version");
    if (version == raw.end() || !version->is_number_integer()) throw Error("it has no integer \"schema_version\"");
    if (*version != Db::kSchemaVersion)
      throw Error("its schema_version " + version->dump() + " is not the version " +
                  std::to_string(Db::kSchemaVersion) + " this ktune reads");
    auto kernel = raw.find("kernel");
    if (kernel == raw.end() || !kernel->is_string()) throw Error("it has no string \"kernel\"");
    if (!is_kernel_name(*kernel))
      throw Error("its \"kernel\" " + shown_name(kernel->get<std::string>()) +
                  " is not a kernel name (a C identifier)");
    if (*kernel != kernel_)
      throw Error("it is the DB of kernel " + shown_name(kernel->get<std::string>()) + ", not " + shown_name(kernel_));
    auto fps = raw.find("fingerprints");
    if (fps == raw.end() || !fps->is_object()) throw Error("it has no \"fingerprints\" object");

    json doc = empty_doc(kernel_);
    for (const auto& [digest, entry] : fps->items()) {
      const std::string where = "fingerprints." + shown_name(digest);
      try {
        json keys = fingerprint_entry(digest, entry, where);
        doc["fingerprints"][digest] = {{"fingerprint", Fingerprint::from_json(entry.at("fingerprint")).to_json()},
                                       {"keys", std::move(keys)}};
      } catch (const Error& e) {
        skip(where, e.what());
      } catch (const json::exception& e) {
        skip(where, e.what());
      }
    }
    return doc;
  }

  std::size_t count() const { return count_; }
  const std::string& first() const { return first_; }

  std::string summary(const fs::path& path) const {
    if (count_ == 0) return "";
    return path.string() + ": skipped " + std::to_string(count_) + " malformed entr" + (count_ == 1 ? "y" : "ies") +
           " (first: " + first_ + "); those configs will be measured again";
  }

 private:
  json fingerprint_entry(const std::string& digest, const json& entry, const std::string& where) {
    if (!entry.is_object()) throw Error("not an object");
    auto fp_json = entry.find("fingerprint");
    if (fp_json == entry.end()) throw Error("\"fingerprint\" is missing");
    if (Fingerprint::from_json(*fp_json).digest() != digest) throw Error("the digest does not match its fingerprint");
    auto keys = entry.find("keys");
    if (keys == entry.end() || !keys->is_object()) throw Error("\"keys\" is not an object");
    json out = json::object();
    for (const auto& [key, configs] : keys->items()) {
      const std::string key_where = where + ".keys." + shown_name(key);
      if (!configs.is_object()) {
        skip(key_where, "not an object");
        continue;
      }
      json kept = json::object();
      for (const auto& [id, rec] : configs.items()) {
        try {
          if (!rec.is_object()) throw Error("not an object");
          auto values = rec.find("values");
          auto m = rec.find("measurement");
          if (values == rec.end() || m == rec.end()) throw Error("needs \"values\" and \"measurement\"");
          check_values(*values);
          check_id(id, *values);
          kept[id] = {{"values", *values}, {"measurement", Measurement::from_json(*m).to_json()}};
        } catch (const Error& e) {
          skip(key_where + "." + shown_name(id), e.what());
        }
      }
      if (!kept.empty()) out[key] = std::move(kept);
    }
    return out;
  }

  // Reasons quote the file's values (an unknown status...): kept to one printable line.
  void skip(const std::string& where, const std::string& why) {
    if (count_++ == 0) first_ = untrusted_json::printable(where + ": " + why, 300);
  }

  std::string kernel_;
  std::size_t count_ = 0;
  std::string first_;
};

// Throws Error only when the file exists but cannot be read: that is the machine's
// problem (permissions), not the file's, so it is neither trusted nor moved. A null
// `kernel` accepts the file's own.
Snapshot read_snapshot(const fs::path& path, const std::string* kernel) {
  Snapshot s;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return s;
    throw Error(path.string() + ": cannot read the tuning DB (" + errno_text(errno) + "); check its permissions");
  }
  struct stat st {};
  std::string text;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  int err = ok ? 0 : EISDIR;
  if (ok) {
    text.reserve(static_cast<std::size_t>(st.st_size));
    char buffer[1 << 16];
    for (;;) {
      ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        ok = false;
        err = errno;
      }
      if (n <= 0) break;
      text.append(buffer, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  if (!ok)
    throw Error(path.string() + ": cannot read the tuning DB (" + errno_text(err) +
                "); it must be a readable regular file");
  s.exists = true;
  s.stamp = stamp_of(st);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    s.corrupt = "it is empty";
    return s;
  }
  json raw;
  if (const std::string why = untrusted_json::parse(text, raw); !why.empty()) {
    s.corrupt = "it is not valid JSON (" + why + ")";
    return s;
  }
  // Without an expected kernel the file's own is taken; a missing one is still refused.
  std::string own_kernel;
  if (!kernel && raw.is_object())
    if (auto it = raw.find("kernel"); it != raw.end() && it->is_string()) own_kernel = *it;
  Normalizer normalizer(kernel ? *kernel : own_kernel);
  try {
    s.doc = normalizer.run(raw);
  } catch (const Error& e) {
    s.corrupt = e.what();
    return s;
  } catch (const json::exception& e) {
    s.corrupt = std::string("its structure is unexpected (") + e.what() + ")";
    return s;
  }
  s.skipped = normalizer.summary(path);
  s.skipped_count = normalizer.count();
  s.first_skipped = normalizer.first();
  return s;
}

// Keeps the bad file for a post-mortem and returns the one-line warning.
std::string set_aside(const fs::path& path, const std::string& reason) {
  const std::string base = path.string() + ".corrupt-" + std::to_string(std::time(nullptr));
  fs::path dest = base;
  std::error_code ec;
  for (int n = 2; fs::exists(dest, ec) && n < 1000; ++n) dest = base + "-" + std::to_string(n);
  const std::string head = path.string() + ": not trusted, " + reason;
  if (::rename(path.c_str(), dest.c_str()) == 0)
    return head + "; moved it to " + dest.string() + " and started an empty DB";
  return head + "; could not move it aside (" + errno_text(errno) + "), so it is ignored and an empty DB is used";
}

[[noreturn]] void write_failed(const fs::path& path, const std::string& what, int err) {
  throw Error(path.string() + ": cannot write the tuning DB (" + what + ": " + errno_text(err) +
              "); the DB on disk is unchanged. Check that the directory is writable and "
              "the disk has space");
}

// A record checked and in the form the file holds, before the disk is touched: what a
// later read would drop is refused here.
struct PreparedRecord {
  std::string digest;
  json fp;
  const std::string* key;
  const std::string* id;
  json entry;
};

std::vector<PreparedRecord> prepare_records(const fs::path& path, const std::vector<DbRecord>& records) {
  std::vector<PreparedRecord> prepared;
  prepared.reserve(records.size());
  for (const DbRecord& r : records) {
    try {
      check_values(r.values);
      check_id(r.config_id, r.values);
      prepared.push_back(
          {r.fp.digest(),
           Fingerprint::from_json(r.fp.to_json()).to_json(),
           &r.key,
           &r.config_id,
           {{"values", r.values}, {"measurement", Measurement::from_json(r.measurement.to_json()).to_json()}}});
    } catch (const Error& e) {
      throw Error(path.string() + ": cannot record config " + shown_name(r.config_id) + " on key " + shown_name(r.key) +
                  ": " + e.what() + "; the DB on disk is unchanged");
    }
  }
  return prepared;
}

// What adding one record replaced, to take it out again if the write fails.
struct Undo {
  const PreparedRecord* p;
  bool had_fp, had_key;
  std::optional<json> previous;
};

std::vector<Undo> add_records(json& fps, std::vector<PreparedRecord>& prepared) {
  std::vector<Undo> undo;
  undo.reserve(prepared.size());
  for (PreparedRecord& p : prepared) {
    const bool had_fp = fps.contains(p.digest);
    json& slot = fps[p.digest];
    if (!had_fp) slot = {{"fingerprint", p.fp}, {"keys", json::object()}};
    json& keys = slot["keys"];
    const bool had_key = keys.contains(*p.key);
    json& configs = keys[*p.key];
    if (!had_key) configs = json::object();
    std::optional<json> previous;
    if (auto it = configs.find(*p.id); it != configs.end()) previous = std::move(*it);
    configs[*p.id] = std::move(p.entry);
    undo.push_back({&p, had_fp, had_key, std::move(previous)});
  }
  return undo;
}

// Newest first, so that memory matches the disk again.
void undo_records(json& fps, std::vector<Undo>& undo) {
  for (auto u = undo.rbegin(); u != undo.rend(); ++u) {
    json& keys = fps[u->p->digest]["keys"];
    json& configs = keys[*u->p->key];
    if (u->previous)
      configs[*u->p->id] = std::move(*u->previous);
    else
      configs.erase(*u->p->id);
    if (!u->had_key) keys.erase(*u->p->key);
    if (!u->had_fp) fps.erase(u->p->digest);
  }
}

}  // namespace

std::string config_id_of(const json& values) {
  if (!values.is_object()) throw Error("\"values\" must be an object of name: integer");
  std::vector<std::string> names;
  std::vector<int64_t> numbers;
  for (const auto& [name, v] : values.items()) {
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX))
      throw Error("\"values\"." + shown_name(name) + " is not a 64-bit integer");
    names.push_back(name);
    numbers.push_back(v.get<int64_t>());
  }
  return config_id(names, numbers);
}

Db::Loaded Db::load_document(const std::filesystem::path& path) {
  Snapshot s = read_snapshot(path, nullptr);
  if (!s.exists) throw Error(path.string() + ": no such tuning DB; check the path");
  if (!s.corrupt.empty()) throw Error(path.string() + ": not a usable tuning DB: " + s.corrupt);
  return {std::move(s.doc), s.skipped_count, std::move(s.first_skipped), std::move(s.skipped)};
}

Db::Db(std::filesystem::path path, std::string kernel)
    : path_(std::move(path)), kernel_(std::move(kernel)), doc_(empty_doc(kernel_)) {
  reload();
}

// Readers go on without a lock when none can be had (a DB shipped in a read-only
// directory): writers replace the file by rename, so a reader never sees half of one.
void Db::reload() {
  std::error_code ec;
  if (!fs::exists(path_, ec)) {
    doc_ = empty_doc(kernel_);
    stamp_ = {};
    return;
  }
  LockFile lock(with_suffix(path_, ".lock"));
  lock.acquire(LOCK_SH);
  Snapshot s = read_snapshot(path_, &kernel_);
  if (!s.corrupt.empty()) {
    // Moving a file aside needs the exclusive lock, and a look at what is there now:
    // a writer may have replaced the bad file while this reader waited.
    lock.acquire(LOCK_EX);
    s = read_snapshot(path_, &kernel_);
    if (!s.corrupt.empty()) warning_ = set_aside(path_, s.corrupt);
  }
  if (!s.skipped.empty()) warning_ = s.skipped;
  doc_ = s.exists && s.corrupt.empty() ? std::move(s.doc) : empty_doc(kernel_);
  lines_.clear();
  stamp_ = s.exists && s.corrupt.empty() ? s.stamp : Stamp{};
}

std::optional<Measurement> Db::find(const Fingerprint& fp, const std::string& key, const std::string& config_id) const {
  const json* node = &doc_;
  for (const std::string& step :
       {std::string("fingerprints"), fp.digest(), std::string("keys"), key, config_id, std::string("measurement")}) {
    if (!node->is_object()) return std::nullopt;
    auto it = node->find(step);
    if (it == node->end()) return std::nullopt;
    node = &*it;
  }
  try {
    return Measurement::from_json(*node);
  } catch (const Error&) {
    return std::nullopt;  // not reachable through a normalized doc; never trusted anyway
  }
}

void Db::record(const Fingerprint& fp, const std::string& key, const std::string& config_id, const json& values,
                const Measurement& m) {
  record_many({DbRecord{fp, key, config_id, values, m}});
}

void Db::record_many(const std::vector<DbRecord>& records) {
  if (records.empty()) return;
  // A file this ktune could not read back would be set aside by the next reader.
  if (!is_kernel_name(kernel_))
    throw Error(path_.string() + ": cannot record measurements of kernel " + shown_name(kernel_) +
                ": a kernel's name is a C identifier; the DB on disk is unchanged");
  std::vector<PreparedRecord> prepared = prepare_records(path_, records);

  if (path_.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(path_.parent_path(), ec);
    if (ec)
      throw Error(path_.string() + ": cannot create its directory (" + ec.message() + "); the DB on disk is unchanged");
  }
  const fs::path lock_path = with_suffix(path_, ".lock");
  LockFile lock(lock_path);
  if (!lock.opened()) write_failed(path_, "creating the lock file " + lock_path.string(), lock.open_error());
  if (!lock.acquire(LOCK_EX)) write_failed(path_, "locking " + lock_path.string(), errno);

  // Another tuner may have written since this one last looked: merge into its file.
  if (stamp_ == Stamp{} || stamp_of(path_) != stamp_) {
    Snapshot s = read_snapshot(path_, &kernel_);
    if (!s.corrupt.empty()) warning_ = set_aside(path_, s.corrupt);
    if (!s.skipped.empty()) warning_ = s.skipped;
    doc_ = s.exists && s.corrupt.empty() ? std::move(s.doc) : empty_doc(kernel_);
    lines_.clear();
  }

  // Added in place; taken out again if the write fails, so that memory matches the disk.
  json& fps = doc_["fingerprints"];
  std::vector<Undo> undo = add_records(fps, prepared);
  for (const PreparedRecord& p : prepared) lines_.erase(line_key(p.digest, *p.key, *p.id));
  const auto now = std::chrono::steady_clock::now();
  const bool durable = now - last_sync_ >= std::chrono::seconds(1);
  try {
    write_file_atomic(path_, render(), {.durable = durable, .subject = "the tuning DB", .noun = "DB"});
  } catch (...) {
    undo_records(fps, undo);
    for (const PreparedRecord& p : prepared) lines_.erase(line_key(p.digest, *p.key, *p.id));
    throw;
  }
  if (durable) last_sync_ = now;
  unsynced_ = !durable;
  stamp_ = stamp_of(path_);
}

void Db::sync() {
  if (!unsynced_) return;
  int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  sync_directory(path_);
  unsynced_ = false;
  last_sync_ = std::chrono::steady_clock::now();
}

Db::~Db() { sync(); }

std::string Db::line_key(const std::string& digest, const std::string& key, const std::string& config_id) {
  // Length-prefixed, so that no choice of names makes two tuples collide.
  return std::to_string(digest.size()) + ':' + digest + std::to_string(key.size()) + ':' + key + config_id;
}

// The file's text: one line per config, so that a DB kept in git diffs by config. Each
// config's line is made once and kept; writing after every config then costs a copy of
// the text, not a new serialisation of everything measured so far.
std::string Db::render() {
  auto quoted = [](const std::string& s) { return json(s).dump(-1, ' ', false, json::error_handler_t::replace); };
  std::string out;
  out.reserve(rendered_size_ + 4096);
  out += "{\n \"schema\": \"ktune.db\",\n \"schema_version\": " + std::to_string(kSchemaVersion) +
         ",\n \"kernel\": " + quoted(kernel_) + ",\n \"fingerprints\": {";
  const char* fp_sep = "\n";
  for (const auto& [digest, slot] : doc_["fingerprints"].items()) {
    out += fp_sep;
    fp_sep = ",\n";
    out += "  " + quoted(digest) +
           ": {\n   \"fingerprint\": " + slot.at("fingerprint").dump(-1, ' ', false, json::error_handler_t::replace) +
           ",\n   \"keys\": {";
    const char* key_sep = "\n";
    for (const auto& [key, configs] : slot.at("keys").items()) {
      out += key_sep;
      key_sep = ",\n";
      out += "    " + quoted(key) + ": {";
      const char* config_sep = "\n";
      for (const auto& [id, rec] : configs.items()) {
        out += config_sep;
        config_sep = ",\n";
        auto [line, made] = lines_.try_emplace(line_key(digest, key, id));
        if (made) line->second = "     " + quoted(id) + ": " + rec.dump(-1, ' ', false, json::error_handler_t::replace);
        out += line->second;
      }
      out += "\n    }";
    }
    out += "\n   }\n  }";
  }
  out += "\n }\n}\n";
  rendered_size_ = out.size();
  return out;
}

}  // namespace ktune
