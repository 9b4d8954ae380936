#!/usr/bin/env python3
"""Writes the kernel table of docs/kernels.md from `spbench --list`, so that
the reference is the table itself and cannot drift from it.

usage: kernel_reference.py SPBENCH [DOC]     (DOC: docs/kernels.md)

Run it with a binary built with CUDA and MPI (every row of the table is
then listed); tests/e2e_run.py checks that each row a build lists reads
the same in the reference.
"""
import os
import re
import subprocess
import sys

BEGIN = "<!-- the kernel table, written by scripts/dev/kernel_reference.py from spbench --list -->"
END = "<!-- end of the kernel table -->"


def listed(spbench):
    """(name, operation, format, backend, description) of each row."""
    out = subprocess.run([spbench, "--list"], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split(None, 4)
        if len(fields) < 5:
            continue
        fields[4] = re.sub(r" \[unavailable: .*\]$", "", fields[4])
        rows.append(tuple(fields))
    return rows


def table(rows):
    lines = ["| kernel | operation | format | backend | what it does |", "|---|---|---|---|---|"]
    lines += ["| `%s` | %s | %s | %s | %s |" % (n, o, f, b, d.replace("|", "\\|"))
              for n, o, f, b, d in rows]
    return "\n".join(lines)


def written(doc):
    """The rows of the reference table in doc's text."""
    text = doc[doc.index(BEGIN):doc.index(END)] if BEGIN in doc and END in doc else ""
    rows = []
    for line in text.splitlines():
        m = re.match(r"^\| `([^`]+)` \| (\S+) \| (\S+) \| (\S+) \| (.*) \|$", line)
        if m:
            rows.append(tuple(list(m.groups()[:4]) + [m.group(5).replace("\\|", "|")]))
    return rows


def main(argv):
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    path = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "docs",
                                                      "kernels.md")
    doc = open(path).read()
    block = "%s\n%s\n%s" % (BEGIN, table(listed(argv[0])), END)
    if BEGIN in doc and END in doc:
        doc = doc[:doc.index(BEGIN)] + block + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip() + "\n\n## The table\n\n" + block + "\n"
    open(path, "w").write(doc)
    print("%s: %d kernels" % (path, len(listed(argv[0]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
