#!/usr/bin/env python3
"""The CLI reference (docs/cli.md) against the tool: every subcommand `ktune --help` lists
has a section (a heading with `ktune <name>`), every option its --help lists is in that
section, every option row of a section exists, and every option of the kernels' tuner
programs (tuner/src/cli/tuner_main.cpp) is in the `ktune_<kernel>_tuner` section, and every
list of the search strategies in the docs names exactly the tool's strategy table. Also
the --help texts' shared style: every option described, no description ending in a period,
subcommand descriptions starting with a capital.
usage: docs_cli.py <ktune source> <ktune tool>"""
import pathlib
import re
import subprocess
import sys

root, tool = pathlib.Path(sys.argv[1]), sys.argv[2]
doc = (root / "docs/cli.md").read_text()
failures = []


def help_entries(args):
    """(names, description) of each entry of the Positionals, Options and Subcommands lists."""
    text = subprocess.run([tool, *args, "--help"], stdout=subprocess.PIPE, text=True, check=True).stdout
    entries, section = [], None
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^[A-Z][a-z]+:$", line):
            section = line[:-1]
            continue
        if section and re.match(r"^  \S", line):
            names = line.split()[0]
            description = line[30:].strip() if len(line) > 30 and line[29] == " " else ""
            if not description and i + 1 < len(lines) and lines[i + 1].startswith(" " * 30):
                description = lines[i + 1].strip()
            entries.append((section, names, description))
    return entries


def section_of(title):
    """The text of docs/cli.md's section whose heading names `title`, up to the next heading."""
    m = re.search(r"^##+ .*`" + re.escape(title) + r"(`| )", doc, re.M)
    if not m:
        return None
    end = re.search(r"^##+ ", doc[m.end():], re.M)
    return doc[m.start():m.end() + end.start() if end else len(doc)]


def check_style(where, kind, names, description):
    if not description:
        failures.append(f"{where}: {names} has no description in --help")
    elif description.endswith("."):
        failures.append(f"{where}: the description of {names} ends in a period: '{description}'")
    elif kind == "Subcommands" and not description[0].isupper():
        failures.append(f"{where}: the description of subcommand {names} does not start with a capital")


subcommands = [names for kind, names, _ in help_entries([]) if kind == "Subcommands"]
if not subcommands:
    failures.append("ktune --help lists no subcommands")
for kind, names, description in help_entries([]):
    check_style("ktune --help", kind, names, description)
documented = set(re.findall(r"^##+ .*`ktune ([a-z0-9-]+)", doc, re.M))
for name in sorted(documented - set(subcommands)):
    failures.append(f"docs/cli.md documents `ktune {name}`, which the tool does not have")
for sub in subcommands:
    section = section_of("ktune " + sub)
    if section is None:
        failures.append(f"docs/cli.md has no section for `ktune {sub}`: add a heading ## `ktune {sub}`")
        continue
    options = set()
    for kind, names, description in help_entries([sub]):
        check_style(f"ktune {sub} --help", kind, names, description)
        for name in re.findall(r"--[a-z0-9-]+", names):
            if name == "--help":
                continue
            options.add(name)
            if f"`{name}" not in section:
                failures.append(f"docs/cli.md, `ktune {sub}`: option {name} is not documented")
    for name in sorted(set(re.findall(r"^\| `(--[a-z0-9-]+)", section, re.M)) - options):
        failures.append(f"docs/cli.md, `ktune {sub}`: documents {name}, which `ktune {sub} --help` does not list")

tuner_source = (root / "tuner/src/cli/tuner_main.cpp").read_text()
tuner_options = sorted(set(re.findall(r'add_(?:option|flag)\(\s*"(--[a-z0-9-]+)', tuner_source)))
section = section_of("ktune_<kernel>_tuner")
if section is None:
    failures.append("docs/cli.md has no section for the tuner programs: add ## `ktune_<kernel>_tuner`")
else:
    for name in tuner_options:
        if f"`{name}" not in section:
            failures.append(f"docs/cli.md, `ktune_<kernel>_tuner`: option {name} (tuner_main.cpp) is not documented")

# The strategy table (search_choice.cpp), as `ktune simulate --help` prints it, against every
# place the docs list the strategies: cli.md's simulate row, cmake.md's STRATEGY row, and a
# section of search.md for each.
strategy_help = [d for _, names, d in help_entries(["simulate"]) if names.startswith("--strategy")]
strategies = re.findall(r"[a-z][a-z-]*", strategy_help[0].split(":", 1)[1].split(")", 1)[1]) if strategy_help else []
if not strategies:
    failures.append("`ktune simulate --help` lists no strategies after 'search strategy: default (...)'")
search_doc = (root / "docs/search.md").read_text()
strategy_rows = {
    "docs/cli.md, `ktune simulate`'s --strategy row": next(
        (line for line in (section_of("ktune simulate") or "").splitlines() if line.startswith("| `--strategy`")), ""),
    "docs/cmake.md's STRATEGY row": next(
        (line for line in (root / "docs/cmake.md").read_text().splitlines() if line.startswith("| `STRATEGY")), ""),
}
for where, row in strategy_rows.items():
    listed = set(re.findall(r"`([a-z][a-z-]*)`", row)) - {"default"}
    for name in sorted(set(strategies) - listed):
        failures.append(f"{where} does not list the strategy `{name}`")
    for name in sorted(listed - set(strategies)):
        failures.append(f"{where} lists `{name}`, which is not a strategy")
for name in strategies:
    if f"**`{name}`**:" not in search_doc:
        failures.append(f"docs/search.md has no section for the strategy `{name}` (a paragraph starting **`{name}`**:)")

for f in failures:
    print("FAIL:", f)
print(f"{len(subcommands)} subcommands, {len(tuner_options)} tuner program options and {len(strategies)} strategies checked")
sys.exit(1 if failures else 0)
