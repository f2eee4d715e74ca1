#include "ktune/cuda_arch.hpp"

#include <string>

namespace ktune {

std::optional<BakedArch> parse_cuda_arch(std::string_view text) {
  BakedArch a;
  if (!text.empty() && (text.back() == 'a' || text.back() == 'f')) {
    a.arch_specific = true;
    text.remove_suffix(1);
  }
  if (text.size() < 2 || text.size() > 3 || text.front() == '0' ||
      text.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  a.major = std::stoi(std::string(text.substr(0, text.size() - 1)));
  a.minor = text.back() - '0';
  return a;
}

}  // namespace ktune
