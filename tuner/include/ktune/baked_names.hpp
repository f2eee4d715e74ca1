#pragma once
// The names the generated header (ktune bake) declares: the kernel's parameters become
// fields of its Config struct, the key dimensions fields of its Key struct. `ktune plan`
// checks them at configure time, so that a bad name fails there, not at compile or bake.
#include <string>

namespace ktune {

// [A-Za-z_][A-Za-z0-9_]*, at most 200 characters, and not a C++ keyword.
bool is_cpp_identifier(const std::string& s);

// Why the generated header cannot have a field named `name` (a parameter, or a key
// dimension when `key_dimension`): not a C++ identifier, a keyword, a name reserved to the
// compiler (__x, _X), or one the header declares itself. Empty when it can.
std::string unbakeable_name(const std::string& name, bool key_dimension);

}  // namespace ktune
