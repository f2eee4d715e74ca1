#include "cli/report/csv.hpp"

#include <iomanip>
#include <sstream>

namespace ktune::cli::report {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

namespace {
std::string number(double v) {
  std::ostringstream o;
  o.precision(9);
  o << v;
  return o.str();
}
// A Unix time to the millisecond: 9 significant digits would round it to tens of seconds.
std::string unix_time(double t) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(3) << t;
  return o.str();
}
}  // namespace

std::string measurements_csv(const Measurements& all) {
  std::ostringstream out;
  out << "kernel,gpu,key,id";
  for (const auto& p : all.params) out << "," << csv_field(p);
  out << ",status,median_ms,abandoned,samples,seconds,at,message\r\n";
  for (const auto& s : all.series)
    for (const auto& e : s.entries) {
      out << csv_field(s.kernel) << "," << csv_field(s.gpu) << "," << csv_field(s.key) << "," << csv_field(e.id);
      for (const auto& p : all.params)
        out << ","
            << (e.values.contains(p)
                    ? csv_field(e.values[p].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
                    : "");
      out << "," << csv_field(e.status) << "," << number(e.median_ms) << "," << (e.abandoned ? "true" : "false") << ","
          << e.samples << "," << number(e.seconds) << "," << (e.at > 0 ? unix_time(e.at) : "") << ","
          << csv_field(e.message) << "\r\n";
    }
  return out.str();
}

}  // namespace ktune::cli::report
