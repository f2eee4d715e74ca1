#include "fault_matrix.hpp"

#include <cctype>
#include <stdexcept>

namespace ktune::file_faults {
namespace {

std::vector<std::string> segments(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = 1;
  while (start <= path.size() && !path.empty()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    out.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The member `segment` of `node` names: its key in an object, its index in a list.
json& step(json& node, const std::string& segment) {
  if (node.is_object()) {
    if (segment == "*") {
      if (node.empty()) throw std::out_of_range("empty object");
      return node.begin().value();
    }
    return node.at(segment);
  }
  if (node.is_array()) return node.at(segment == "*" ? 0 : std::stoul(segment));
  throw std::out_of_range("no member " + segment);
}

std::string parent_of(const std::string& path) { return path.substr(0, path.rfind('/')); }
std::string last_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }

void erase(json& doc, const std::string& path) {
  json& parent = at(doc, parent_of(path));
  const std::string last = last_of(path);
  if (parent.is_object())
    parent.erase(last == "*" ? parent.begin().key() : last);
  else
    parent.erase(last == "*" ? 0 : std::stoul(last));
}

// "/compile/include_dirs" -> "compile_include_dirs"; "*" is "first".
std::string name_of(const std::string& path) {
  std::string out;
  for (const std::string& s : segments(path)) {
    if (!out.empty()) out += '_';
    if (s == "*") {
      out += "first";
      continue;
    }
    for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return out;
}

// The document with `path` set to a marker, dumped, and the marker's JSON string replaced by
// raw text: how values no JSON library writes (1e400, NaN, raw bytes) get into a file.
const std::string kMarker = "@@KTUNE_RAW@@";

std::string with_raw(const json& good, const std::string& path, const std::string& raw, bool in_string) {
  json doc = good;
  at(doc, path) = kMarker;
  std::string text = text_of(doc);
  const std::string quoted = "\"" + kMarker + "\"";
  const std::size_t pos = text.find(quoted);
  if (in_string)
    text.replace(pos + 1, kMarker.size(), raw);
  else
    text.replace(pos, quoted.size(), raw);
  return text;
}

Fault whole(const std::string& name, std::function<std::string(const std::string&)> f) {
  return {name, Expect::Refused, "", [f](const json& good) { return f(text_of(good)); }};
}

Fault set_value(const std::string& name, Expect expect, const std::string& path, json value) {
  return {name, expect, path, [path, value](const json& good) {
            json doc = good;
            at(doc, path) = value;
            return text_of(doc);
          }};
}

Fault raw_value(const std::string& name, const std::string& path, const std::string& raw, bool in_string = false) {
  return {name, Expect::Refused, path,
          [path, raw, in_string](const json& good) { return with_raw(good, path, raw, in_string); }};
}

// A value of another JSON type than `v`.
json other_type(const json& v) {
  if (v.is_string()) return 12345;
  if (v.is_number()) return "12";
  if (v.is_boolean()) return "yes";
  if (v.is_array()) return json{{"a", 1}};
  if (v.is_object()) return json::array({1, 2});
  return "x";
}

std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

}  // namespace

std::string text_of(const json& doc) { return doc.dump(1); }

json& at(json& doc, const std::string& path) {
  json* node = &doc;
  for (const std::string& s : segments(path)) node = &step(*node, s);
  return *node;
}

void PrintTo(const Fault& fault, std::ostream* out) { *out << fault.name; }

const std::vector<Payload>& hostile_strings() {
  static const std::vector<Payload> payloads = {
      {"comment_include", "\"*/ #include <x> PWNED"},
      {"newline_define", "x\n#define PWNED 1\n"},
      {"system_call", "\"); system(\"rm -rf / PWNED"},
      {"backslash_trigraph", "?\?/\\ PWNED \\\" ?\?= R\"x(PWNED)x\""},
      {"string_10mb", "", true},
  };
  return payloads;
}

std::string hostile_text(const Payload& payload) {
  return payload.huge ? std::string(10 << 20, 'A') + "PWNED" : payload.text;
}

std::vector<Fault> faults_of(const Shape& shape) {
  std::vector<Fault> out = {
      whole("empty", [](const std::string&) { return std::string(); }),
      whole("blank", [](const std::string&) { return std::string(" \n\t \n"); }),
      whole("truncated_to_1_byte", [](const std::string& t) { return t.substr(0, 1); }),
      whole("truncated_25pct", [](const std::string& t) { return t.substr(0, t.size() / 4); }),
      whole("truncated_50pct", [](const std::string& t) { return t.substr(0, t.size() / 2); }),
      whole("truncated_75pct", [](const std::string& t) { return t.substr(0, t.size() * 3 / 4); }),
      whole("truncated_last_byte", [](const std::string& t) { return t.substr(0, t.size() - 1); }),
      whole("not_json", [](const std::string&) { return std::string("this is not JSON\n"); }),
      whole("binary_bytes",
            [](const std::string&) {
              std::string s;
              for (int i = 0; i < 1024; ++i) s += static_cast<char>(i * 37 % 256);
              return s;
            }),
      whole("nul_byte_inside",
            [](const std::string& t) { return t.substr(0, t.size() / 2) + '\0' + t.substr(t.size() / 2); }),
      whole("trailing_garbage", [](const std::string& t) { return t + " garbage"; }),
      whole("two_documents", [](const std::string& t) { return t + t; }),
      whole("top_level_list", [](const std::string& t) { return "[" + t + "]"; }),
      whole("top_level_string", [](const std::string&) { return std::string("\"text\""); }),
      whole("top_level_number", [](const std::string&) { return std::string("42"); }),
      whole("top_level_null", [](const std::string&) { return std::string("null"); }),
      whole("top_level_true", [](const std::string&) { return std::string("true"); }),
      whole("deep_lists_100000", [](const std::string&) { return nested(100000); }),
      whole("deep_lists_65", [](const std::string&) { return nested(65); }),
      whole("deep_objects_100000",
            [](const std::string&) {
              std::string s;
              for (int i = 0; i < 100000; ++i) s += "{\"a\":";
              return s + "1" + std::string(100000, '}');
            }),
  };

  // Raw bytes in the first string field: JSON is UTF-8, so the parser must refuse them.
  const std::vector<std::string>& strings = shape.names.empty() ? shape.free_text : shape.names;
  if (!strings.empty()) {
    out.push_back(raw_value("non_utf8_byte", strings.front(), "GPU \xff\xfe", true));
    out.push_back(raw_value("non_utf8_overlong_slash", strings.front(),
                            "a\xc0\xaf"
                            "b",
                            true));
    out.push_back(raw_value("lone_surrogate_escape", strings.front(), "a\\ud800b", true));
    out.push_back(raw_value("control_byte_raw", strings.front(), "a\x01\nb", true));
  }

  if (!shape.schema.empty()) {
    out.push_back(set_value("wrong_schema", Expect::Refused, shape.schema, "ktune.something_else"));
    out.push_back(set_value("schema_of_wrong_type", Expect::Refused, shape.schema, 7));
  }
  if (!shape.version.empty()) {
    out.push_back(set_value("future_schema_version", Expect::Refused, shape.version, shape.future_version));
    if (shape.future_version.is_number()) {
      out.push_back(set_value("older_schema_version", Expect::Refused, shape.version, 0));
      out.push_back(set_value("fractional_schema_version", Expect::Refused, shape.version, 1.5));
      out.push_back(set_value("boolean_schema_version", Expect::Refused, shape.version, true));
      out.push_back(
          set_value("huge_schema_version", Expect::Refused, shape.version, json::parse("1180591620717411303424")));
      out.push_back(set_value("string_schema_version", Expect::Refused, shape.version, "1"));
    } else {
      out.push_back(set_value("nonsense_schema_version", Expect::Refused, shape.version, "banana"));
      out.push_back(set_value("numeric_schema_version", Expect::Refused, shape.version, 1));
    }
  }

  for (const std::string& p : shape.required) {
    out.push_back({"missing_" + name_of(p), Expect::Refused, p, [p](const json& good) {
                     json doc = good;
                     erase(doc, p);
                     return text_of(doc);
                   }});
    out.push_back(set_value("null_" + name_of(p), Expect::Refused, p, nullptr));
  }
  for (const std::string& p : shape.typed)
    out.push_back({"wrong_type_" + name_of(p), Expect::Refused, p, [p](const json& good) {
                     json doc = good;
                     json& v = at(doc, p);
                     v = other_type(v);
                     return text_of(doc);
                   }});
  if (!shape.typed.empty())
    out.push_back(raw_value("deep_value_" + name_of(shape.typed.front()), shape.typed.front(), nested(100000)));

  for (const std::string& p : shape.integers) {
    const std::string n = name_of(p);
    out.push_back(set_value("fraction_" + n, Expect::Refused, p, 0.5));
    out.push_back(set_value("boolean_" + n, Expect::Refused, p, true));
    out.push_back(raw_value("huge_2pow70_" + n, p, "1180591620717411303424"));
    out.push_back(raw_value("huge_2pow64_" + n, p, "18446744073709551616"));
    out.push_back(raw_value("below_int64_" + n, p, "-9223372036854775809"));
    out.push_back(raw_value("huge_1e400_" + n, p, "1e400"));
    out.push_back(raw_value("nan_" + n, p, "NaN"));
    out.push_back(raw_value("infinity_" + n, p, "Infinity"));
  }
  for (const std::string& p : shape.reals) {
    const std::string n = name_of(p);
    out.push_back(raw_value("huge_1e400_" + n, p, "1e400"));
    out.push_back(raw_value("minus_huge_1e400_" + n, p, "-1e400"));
    out.push_back(raw_value("nan_" + n, p, "NaN"));
    out.push_back(raw_value("infinity_" + n, p, "Infinity"));
    out.push_back(raw_value("minus_infinity_" + n, p, "-Infinity"));
    out.push_back(set_value("negative_" + n, Expect::Refused, p, -1));
  }
  // The payload is looked up when the file is made: a 10 MB string per case adds up. It
  // goes into the first field of each list only, as every reader handles it in seconds.
  for (const auto& [list, expect] :
       {std::pair{&shape.names, Expect::Refused}, std::pair{&shape.free_text, Expect::Tolerated}})
    for (const std::string& p : *list)
      for (std::size_t i = 0; i < hostile_strings().size(); ++i)
        if (!hostile_strings()[i].huge || p == list->front())
          out.push_back(
              {"hostile_" + hostile_strings()[i].name + "_" + name_of(p), expect, p, [p, i](const json& good) {
                 json doc = good;
                 at(doc, p) = hostile_text(hostile_strings()[i]);
                 return text_of(doc);
               }});
  return out;
}

}  // namespace ktune::file_faults
