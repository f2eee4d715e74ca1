#pragma once
// A problem key: the value of each dimension of a problem, {M: 4096, N: 4096}. Its canonical
// text, "M=4096,N=4096" (names sorted, comma-separated), names the rows of a tuning DB and
// stands for the key in messages, files and --key arguments. One type and one parser for
// every key the tuner reads or writes. (The runtime sees a key positionally instead, its
// values in the order KEYS declares the dimensions, without names: src/dispatch.)
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace ktune {

using Key = std::map<std::string, int64_t>;

// The canonical text: "K=4096,M=4096,N=4096"; "" for the key of no dimension.
std::string key_id(const Key& key);

// How a key's text is written.
enum class KeyText {
  // As a person types one, in every --key: NAME=INTEGER items separated by commas or spaces,
  // in any order ("M=4096 N=4096 K=4096"); at least one item.
  Typed,
  // As key_id() writes one (a DB's keys): NAME=INTEGER items separated by single commas, in
  // any order, the names taken as they stand; "" is the key of no dimension.
  Written,
};

// Reads a key. Throws Error for an item that is not NAME=INTEGER, a name given twice, or
// (Typed) no item at all, in words for a --key: `"M4096" is not NAME=VALUE; write e.g.
// --key "M=4096 N=4096"`, `"4k" in "M=4k" is not an integer`, `"M=1 M=2" names "M" twice`,
// `" , " is not a key; write e.g. ...`. Readers of a file's keys catch them.
Key parse_key(std::string_view text, KeyText form = KeyText::Typed);

}  // namespace ktune
