#!/usr/bin/env python3
"""The CMake reference (docs/cmake.md) against the code: every argument ktune_add_kernel()
takes, every cache variable and option the project declares (KTUNE_*, except INTERNAL
ones), and every public function of cmake/*.cmake must be documented. A setting added
without its documentation fails here, naming it and where it is declared.
usage: docs_reference.py <ktune source>"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
reference = (root / "docs/cmake.md").read_text()
all_docs = "\n".join(p.read_text() for p in sorted((root / "docs").glob("*.md")))
missing = []


def calls(text, command):
    """The argument text of each `command(...)` call, quotes and nested parentheses kept whole."""
    for m in re.finditer(r"\b" + command + r"\s*\(", text):
        depth, quoted, i = 1, False, m.end()
        while i < len(text) and depth:
            c = text[i]
            if c == "\\" and quoted:
                i += 1
            elif c == '"':
                quoted = not quoted
            elif not quoted and c == "(":
                depth += 1
            elif not quoted and c == ")":
                depth -= 1
            i += 1
        yield text[m.end():i - 1], text.count("\n", 0, m.start()) + 1


def strip_comments(text):
    return "\n".join(re.sub(r'#[^"\n]*$', "", line) for line in text.splitlines())




def own_project(directory):
    """A project of its own (a sample the tests configure), not part of ktune's build."""
    lists = directory / "CMakeLists.txt"
    return directory not in (root, root / "tuner") and lists.exists() and re.search(
        r"^\s*project\(", lists.read_text(), re.M)


# Every CMake file of the project.
files = [p for p in root.rglob("*") if p.name == "CMakeLists.txt" or p.suffix == ".cmake"]
files = [p for p in files if not any(part in ("build", ".deps", ".git") for part in p.relative_to(root).parts)
         and not any(own_project(d) for d in [p.parent, *p.parent.parents] if root in [d, *d.parents])]

variables = {}
for path in files:
    text = strip_comments(path.read_text())
    where = path.relative_to(root)
    for command in ("set", "option", "find_path", "find_program", "find_library", "find_file"):
        for args, line in calls(text, command):
            m = re.match(r"\s*(KTUNE_[A-Z0-9_]+)\b", args)
            if not m:
                continue
            if command == "set" and not re.search(r"\bCACHE\s+(BOOL|FILEPATH|PATH|STRING)\b", args):
                continue  # a plain variable, or CACHE INTERNAL
            variables.setdefault(m.group(1), f"{where}:{line}")
for name, where in sorted(variables.items()):
    if f"`{name}`" not in reference:
        missing.append(f"cache variable {name} ({where}) is not in docs/cmake.md's settings; add a row `{name}`")

ktune_cmake = strip_comments((root / "cmake/ktune.cmake").read_text())
body = ktune_cmake[ktune_cmake.index("function(ktune_add_kernel"):]
keywords = []
for var in ("keywords", "list_keywords"):
    m = re.search(r"set\(" + var + r"\s+([A-Z_ ]+)\)", body)
    if not m:
        missing.append(f"cmake/ktune.cmake: ktune_add_kernel() has no set({var} ...): update this test")
        continue
    keywords += m.group(1).split()
for kw in keywords:
    if not re.search(r"^\| `" + kw + r"\b", reference, re.M):
        missing.append(f"ktune_add_kernel() argument {kw} has no row in docs/cmake.md's argument table "
                       f"(a line starting with | `{kw}`)")

for path in sorted((root / "cmake").glob("*.cmake")):
    for m in re.finditer(r"^(?:function|macro)\((ktune_[a-z0-9_]+)", strip_comments(path.read_text()), re.M):
        if f"{m.group(1)}(" not in all_docs:
            missing.append(f"public function {m.group(1)}() ({path.relative_to(root)}) is not documented in docs/")

for line in missing:
    print("FAIL:", line)
print(f"{len(variables)} cache variables, {len(keywords)} ktune_add_kernel() arguments checked")
sys.exit(1 if missing else 0)
