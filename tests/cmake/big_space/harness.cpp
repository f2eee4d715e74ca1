// Never built by the test (it only configures); ktune_add_kernel() checks that it exists.
#include <ktune/harness.hpp>

void ktune_harness(ktune::Harness&) {}
