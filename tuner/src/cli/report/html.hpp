#pragma once
// report.html: the whole report in one file to mail or attach: the tables, the plots
// inline (PNG as data: URIs), every measurement in a table sorted by clicking a column.
#include <filesystem>
#include <string>
#include <vector>

#include "cli/report/series.hpp"
#include "cli/report/tables.hpp"

namespace ktune::cli::report {

struct HtmlReport {
  std::string title;
  std::string intro;  // plain text
  std::vector<WinnerRow> winners;
  std::vector<ParameterValues> parameters;
  std::string note;                // plain text, paragraphs apart by a blank line: what the plots show
  std::vector<std::string> plots;  // names of the PNGs drawn in the report's directory
  std::string plot_note;           // plain text: what was not drawn, and why
};

std::string html_report(const HtmlReport& r, const Measurements& all, const std::filesystem::path& dir);

// Text as HTML element content or a quoted attribute.
std::string html_escape(const std::string& s);

// RFC 4648 base64, for data: URIs.
std::string base64(const std::string& bytes);

}  // namespace ktune::cli::report
