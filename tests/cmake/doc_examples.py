#!/usr/bin/env python3
"""Compiles the examples in README.md and docs/*.md, so that they cannot rot.

Every ```cpp, ```cuda and ```cmake block must be preceded by a marker line:

  <!-- doc-test: PROJECT/PATH [uses=OTHER] [configure-only] -->
      the block is the file PATH of the example project PROJECT (several blocks, of one
      document or several, make one project). uses=OTHER starts the project as a copy of
      project OTHER's files. A project with a CMakeLists.txt is configured against this
      source tree (ktune_DIR, the tool and tuner libraries of this build, KTUNE_TUNE=OFF)
      and built, unless a block says configure-only; one without is a set of C++ files,
      each compiled with -fsyntax-only against ktune's headers.
  <!-- doc-test: fragment -->
      a part of a larger file, shown for reading; not compiled.

A block without a marker fails the test, naming the file and line.
usage: doc_examples.py <ktune source> <ktune tool> <tuner libs dir> <work dir> <c++ compiler> <cuda.h directory>
(the compiler and cuda.h directory are those the tuner was built with)"""
import pathlib
import re
import shutil
import subprocess
import sys

root, tool, libs, work = (pathlib.Path(a) for a in sys.argv[1:5])
if len(sys.argv) != 7:
    sys.exit(__doc__.splitlines()[-2])
cxx, cuda_include = sys.argv[5], sys.argv[6]
marker = re.compile(r"^<!-- doc-test: (\S+)((?: \S+)*) -->$")
fence = re.compile(r"^```(cpp|cuda|cmake|c\+\+)\s*$")
failures = []
projects = {}  # name -> {"files": {path: text}, "uses": name, "configure_only": bool, "from": [doc:line]}

docs = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
for doc in docs:
    lines = doc.read_text().splitlines()
    where = doc.relative_to(root)
    i = 0
    while i < len(lines):
        if not fence.match(lines[i]):
            i += 1
            continue
        start = i
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), len(lines))
        body = "\n".join(lines[i + 1:end]) + "\n"
        i = end + 1
        m = marker.match(lines[start - 1]) if start else None
        if not m:
            failures.append(f"{where}:{start + 1}: a ```{fence.match(lines[start]).group(1)} block without a "
                            "marker; put <!-- doc-test: PROJECT/FILE --> (compiled) or <!-- doc-test: fragment --> "
                            "on the line before it")
            continue
        if m.group(1) == "fragment":
            continue
        project, _, path = m.group(1).partition("/")
        if not path:
            failures.append(f"{where}:{start}: doc-test '{m.group(1)}' names no file; write PROJECT/FILE")
            continue
        p = projects.setdefault(project, {"files": {}, "uses": None, "configure_only": False, "from": []})
        for option in m.group(2).split():
            if option == "configure-only":
                p["configure_only"] = True
            elif option.startswith("uses="):
                p["uses"] = option[5:]
            else:
                failures.append(f"{where}:{start}: unknown doc-test option '{option}'")
        if path in p["files"]:
            failures.append(f"{where}:{start}: {project}/{path} is given twice")
        p["files"][path] = body
        p["from"].append(f"{where}:{start + 1}")


def write(name, directory, seen=()):
    p = projects[name]
    if p["uses"]:
        if p["uses"] not in projects or p["uses"] in seen:
            raise SystemExit(f"FAIL: project {name} uses unknown or circular project '{p['uses']}'")
        write(p["uses"], directory, (*seen, name))
    for path, text in p["files"].items():
        (directory / path).parent.mkdir(parents=True, exist_ok=True)
        (directory / path).write_text(text)


def run(command, log):
    r = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log.write_text(r.stdout)
    return r.returncode == 0, r.stdout


shutil.rmtree(work, ignore_errors=True)
for name, p in sorted(projects.items()):
    directory = work / name
    directory.mkdir(parents=True)
    write(name, directory)
    origin = ", ".join(p["from"])
    if (directory / "CMakeLists.txt").exists():
        build = work / (name + ".build")
        ok, out = run(["cmake", "-S", str(directory), "-B", str(build), "-G", "Ninja",
                       f"-Dktune_DIR={root}/cmake", f"-DKTUNE_HOST_TOOL={tool}", f"-DKTUNE_TUNER_LIBS={libs}",
                       "-DKTUNE_TUNE=OFF", "-DKTUNE_CUDA_ARCH=90", "-DKTUNE_COMPILE_JOBS=2"],
                      work / (name + ".configure.log"))
        if ok and not p["configure_only"]:
            ok, out = run(["cmake", "--build", str(build), "--parallel", "2"], work / (name + ".build.log"))
        what = "configured" if p["configure_only"] else "configured and built"
    else:
        ok, out = True, ""
        for source in sorted(directory.rglob("*.cpp")):
            good, text = run([cxx, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-I", str(directory),
                              "-I", str(root / "tuner/include"), "-I", cuda_include, str(source)],
                             work / (name + "." + source.name + ".log"))
            ok, out = ok and good, out + text
        what = "compiled (syntax only)"
    if ok:
        print(f"ok: {name} ({origin}) {what}")
    else:
        failures.append(f"project {name} ({origin}) failed to be {what}:\n{out[-4000:]}")

for f in failures:
    print("FAIL:", f)
print(f"{len(projects)} example projects")
sys.exit(1 if failures else 0)
