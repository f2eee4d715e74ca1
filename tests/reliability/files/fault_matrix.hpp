#pragma once
// The corruptions every file kind is put through: the whole text damaged (empty, cut short,
// not JSON, nested 100000 deep...), and each field of a valid document removed, of the
// wrong type, a number too large or not a number, a string no reader should trust.
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ktune::file_faults {

using nlohmann::json;

// What a reader must do with a fault.
enum class Expect {
  Refused,    // a clear error (or, for the DB, a warning and a fresh start)
  Tolerated,  // odd but harmless: accepted, or refused cleanly; never a crash or injected code
};

struct Fault {
  std::string name;  // a GoogleTest parameter name: letters, digits, '_'
  Expect expect = Expect::Refused;
  std::string path;  // the field it damages ("/compile/nvcc"); empty for the whole text
  // The damaged file's bytes, made from a valid document of the kind.
  std::function<std::string(const json& good)> make;
};

// Where a kind's fields are. Paths are JSON pointers in which "*" stands for the first
// member of an object or the first element of a list (DB digests and config ids vary).
struct Shape {
  std::string schema;                  // the schema name's path, "" when the kind has none
  std::string version;                 // the schema version's path
  json future_version;                 // a version this ktune must not read
  std::vector<std::string> required;   // absent or null: refused
  std::vector<std::string> typed;      // a value of another JSON type: refused
  std::vector<std::string> integers;   // integer values: a fraction or a huge number is refused
  std::vector<std::string> reals;      // numbers: 1e400, NaN, Infinity, negative are refused
  std::vector<std::string> names;      // strings that a hostile value of is refused
  std::vector<std::string> free_text;  // strings that may hold anything (Tolerated)
};

// A valid document as its file holds it (no final newline, so that dropping the last byte
// breaks it).
std::string text_of(const json& doc);

// Every fault of a kind, in a fixed order; names are unique.
std::vector<Fault> faults_of(const Shape& shape);

// The hostile strings, each with "PWNED" in it: no generated code may hold that word
// outside a string literal. The 10 MB one is made only when a case uses it: the cases are
// listed in every run of the test program.
struct Payload {
  std::string name;
  std::string text;  // empty when `huge`
  bool huge = false;
};
const std::vector<Payload>& hostile_strings();
std::string hostile_text(const Payload& payload);

// The value at `path` ("*" as above); throws std::out_of_range when there is none.
json& at(json& doc, const std::string& path);

// GoogleTest prints a parameter by its name.
void PrintTo(const Fault& fault, std::ostream* out);

}  // namespace ktune::file_faults
