#include "ktune/baked_names.hpp"

#include <cctype>
#include <set>

namespace ktune {
namespace {

constexpr const char* kKeywords[] = {
    "alignas",     "alignof",   "and",        "and_eq",    "asm",      "auto",         "bitand",
    "bitor",       "bool",      "break",      "case",      "catch",    "char",         "char8_t",
    "char16_t",    "char32_t",  "class",      "compl",     "concept",  "const",        "consteval",
    "constexpr",   "constinit", "const_cast", "continue",  "co_await", "co_return",    "co_yield",
    "decltype",    "default",   "delete",     "do",        "double",   "dynamic_cast", "else",
    "enum",        "explicit",  "export",     "extern",    "false",    "float",        "for",
    "friend",      "goto",      "if",         "inline",    "int",      "long",         "mutable",
    "namespace",   "new",       "noexcept",   "not",       "not_eq",   "nullptr",      "operator",
    "or",          "or_eq",     "private",    "protected", "public",   "register",     "reinterpret_cast",
    "requires",    "return",    "short",      "signed",    "sizeof",   "static",       "static_assert",
    "static_cast", "struct",    "switch",     "template",  "this",     "thread_local", "throw",
    "true",        "try",       "typedef",    "typeid",    "typename", "union",        "unsigned",
    "using",       "virtual",   "void",       "volatile",  "wchar_t",  "while",        "xor",
    "xor_eq",      "final",     "override",   "import",    "module"};

}  // namespace

bool is_cpp_identifier(const std::string& s) {
  if (s.empty() || s.size() > 200) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  for (const char* k : kKeywords)
    if (s == k) return false;
  return true;
}

std::string unbakeable_name(const std::string& name, bool key_dimension) {
  if (!is_cpp_identifier(name)) return "is not a C++ identifier ([A-Za-z_][A-Za-z0-9_]*, not a keyword)";
  if (name.starts_with("__") ||
      (name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1]))))
    return "is reserved to the compiler (a name starting with __ or _ and a capital)";
  // Names the generated header declares beside the fields: a field of the same name would
  // not compile (Config::of, Key::values(), the int64_t of every field; Config names its own type).
  static const std::set<std::string> config_names = {"of", "Config", "int64_t"}, key_names = {"values", "int64_t"};
  if ((key_dimension ? key_names : config_names).count(name)) return "clashes with a name of the generated header";
  // A parameter is a macro on every compile (-DT=8): names the CUDA toolkit's own headers use
  // as identifiers break every config (nvcc 13.0's headers declare template <typename T>, <typename U>).
  if (!key_dimension && (name == "T" || name == "U"))
    return "is a name CUDA's own headers use (template <typename " + name + ">), so -D" + name +
           "=... breaks every config's compile; give it a longer name";
  return "";
}

}  // namespace ktune
