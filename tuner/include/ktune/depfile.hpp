#pragma once
// The compiler's dependency files (nvcc -MD -MF): which inputs a cubin was built from.
#include <set>
#include <string>
#include <string_view>

namespace ktune {

// Adds the inputs a Make-style depfile lists ("target...: dep dep \<newline> dep") to
// `deps`. Backslash escapes a space or '#', "$$" is '$'. Targets (everything before the
// first ": " of a rule) are not inputs; "-MP" style empty rules ("header.h:") add nothing.
void add_depfile_inputs(std::string_view text, std::set<std::string>& deps);

}  // namespace ktune
