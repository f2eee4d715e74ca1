#include "cli/report/html.hpp"

#include <fstream>
#include <iterator>
#include <sstream>

#include "cli/db_inputs.hpp"

namespace ktune::cli::report {

namespace fs = std::filesystem;

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string base64(const std::string& bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    unsigned v = 0;
    for (std::size_t k = 0; k < 3; ++k) v = v << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? digits[v >> (18 - 6 * k) & 63] : '=';
  }
  return out;
}

namespace {

// Click a column's heading to sort by it (numbers as numbers), again to reverse.
const char* kStyleAndScript = R"(<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 90%; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
th { background: #f0f0f0; cursor: pointer; user-select: none; }
tr:nth-child(even) td { background: #fafafa; }
img { max-width: 100%; border: 1px solid #ddd; }
</style>
<script>
function ktuneSort(th) {
  const table = th.closest('table'), body = table.tBodies[0], col = th.cellIndex;
  const down = th.dataset.order !== 'asc';
  for (const h of th.parentNode.cells) delete h.dataset.order;
  th.dataset.order = down ? 'asc' : 'desc';
  const key = r => r.cells[col].textContent.replace('×', '').trim();
  const rows = Array.from(body.rows);
  const numeric = rows.every(r => key(r) === '' || key(r) === '-' || !isNaN(Number(key(r))));
  rows.sort((a, b) => {
    const x = key(a), y = key(b);
    const c = numeric ? (Number(x === '-' ? Infinity : x) - Number(y === '-' ? Infinity : y)) : x.localeCompare(y);
    return down ? c : -c;
  });
  for (const r of rows) body.appendChild(r);
}
</script>
)";

std::string table(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& rows) {
  std::ostringstream o;
  o << "<table><thead><tr>";
  for (const auto& c : columns) o << "<th onclick=\"ktuneSort(this)\">" << html_escape(c) << "</th>";
  o << "</tr></thead><tbody>\n";
  for (const auto& r : rows) {
    o << "<tr>";
    for (const auto& c : r) o << "<td>" << html_escape(c) << "</td>";
    o << "</tr>\n";
  }
  o << "</tbody></table>\n";
  return o.str();
}

std::string measurements_table(const Measurements& all) {
  std::vector<std::string> columns = {"kernel",    "GPU",    "key",     "config",    "status",
                                      "median ms", "÷ best", "samples", "abandoned", "message"};
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : all.series) {
    const double best = s.best();
    for (const auto& e : s.entries)
      rows.push_back({s.kernel, s.gpu, s.key, values_text(e.values), e.status,
                      e.median_ms > 0 ? fixed(e.median_ms, 4) : "-",
                      e.median_ms > 0 && best > 0 && e.status == "ok" ? fixed(e.median_ms / best, 3) : "-",
                      std::to_string(e.samples), e.abandoned ? "yes" : "", e.message});
  }
  return table(columns, rows);
}

}  // namespace

std::string html_report(const HtmlReport& r, const Measurements& all, const fs::path& dir) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << html_escape(r.title)
    << "</title>\n"
    << kStyleAndScript << "</head><body>\n<h1>" << html_escape(r.title) << "</h1>\n<p>" << html_escape(r.intro)
    << "</p>\n";
  std::vector<std::vector<std::string>> winners;
  for (const auto& w : r.winners) winners.push_back(w.cells);
  o << "<h2>Winners</h2>\n" << table(winner_columns(), winners);
  o << "<h2>Which parameter values the fast configs have</h2>\n<p>Per parameter and value: the best time among "
       "configs with that value, over the key's best (geometric mean over the keys; 1.00: every key's winner has "
       "it).</p>\n<ul>\n";
  for (const auto& p : r.parameters) {
    o << "<li><code>" << html_escape(p.name) << "</code>: ";
    for (std::size_t i = 0; i < p.ratios.size(); ++i)
      o << (i ? ", " : "") << p.ratios[i].first << " → " << fixed(p.ratios[i].second, 2);
    o << "</li>\n";
  }
  o << "</ul>\n";
  for (std::size_t at = 0; at < r.note.size();) {
    std::size_t end = r.note.find("\n\n", at);
    if (end == std::string::npos) end = r.note.size();
    o << "<p>" << html_escape(r.note.substr(at, end - at)) << "</p>\n";
    at = end + 2;
  }
  o << "<h2>Plots</h2>\n";
  for (const auto& name : r.plots) {
    std::ifstream in(dir / (name + ".png"), std::ios::binary);
    const std::string png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (png.empty()) continue;
    o << "<figure><img alt=\"" << html_escape(name) << "\" src=\"data:image/png;base64," << base64(png)
      << "\"><figcaption>" << html_escape(name) << "</figcaption></figure>\n";
  }
  if (!r.plot_note.empty()) o << "<p>" << html_escape(r.plot_note) << "</p>\n";
  o << "<h2>Every measurement</h2>\n<p>Click a column's heading to sort by it. The same rows: "
       "<code>measurements.csv</code>.</p>\n"
    << measurements_table(all) << "</body></html>\n";
  return o.str();
}

}  // namespace ktune::cli::report
