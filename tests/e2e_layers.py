"""The source tree's rooms include only rooms below them (bench/README.md,
docs/DESIGN.md): core at the bottom, then formats, the kernels (cpu, gpu),
what is built on them (mpi, plugins), and bench's rooms from validation,
inputs and machine up to report, run and cli. An #include that points up
or sideways (a room to one of its own level), or one that climbs out of
its folder ("../"), fails here, naming the file, the line and the two
rooms; the checker is shown to catch each on a made-up tree.

usage: e2e_layers.py SPBENCH SOURCE_DIR
"""
import os
import re

from spbtest import SOURCE, check, run_tests

# Each room's level: a file may include its own room and any room of a
# lower level; rooms of one level stay apart.
LEVELS = {
    "core": 0,
    "formats": 1,
    "cpu": 2, "gpu": 2,
    "mpi": 3, "plugins": 3,
    "bench/validation": 4, "bench/inputs": 4, "bench/machine": 4,
    "bench/report": 5,
    "bench/run": 6,
    "bench/cli": 7,
}
SOURCES = (".c", ".h", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def room_of(path):
    """The room a path of the tree (relative, '/'-separated) is in, or None."""
    parts = path.split("/")
    for depth in (2, 1):
        room = "/".join(parts[:depth])
        if len(parts) > depth and room in LEVELS:
            return room
    return None


def arrows_up(root):
    """(file, line number, its room, the included room) for every quoted
    #include of a room of the same or a higher level than the file's."""
    found = []
    for room in LEVELS:
        for folder, _, names in os.walk(os.path.join(root, room)):
            for name in sorted(names):
                if not name.endswith(SOURCES):
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                mine = room_of(rel)
                if mine != room:  # bench/x's files are walked as bench/x's, not bench's
                    continue
                with open(path, errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if m and ".." in m.group(1).split("/"):  # climbs out of its folder
                            found.append((rel, number, mine, m.group(1)))
                            continue
                        target = room_of(m.group(1)) if m else None
                        if target and target != mine and LEVELS[target] >= LEVELS[mine]:
                            found.append((rel, number, mine, target))
    return found


def test_includes_point_down():
    up = arrows_up(SOURCE)
    check(not up, "includes that point up or sideways: %s"
          % ["%s:%d (%s includes %s)" % a for a in up[:5]])
    counted = sum(1 for room in LEVELS for _, _, names in os.walk(os.path.join(SOURCE, room))
                  for n in names if n.endswith(SOURCES))
    check(counted > 100, "the rooms were walked: %d source files" % counted)


def test_checker_flags_an_arrow_up(tmp):
    """A made-up tree: run including cli (up), cpu including gpu
    (sideways), report including run (up); and the arrows down it allows."""
    files = {
        "bench/run/run.c": '#include "bench/report/report.h"\n#include "bench/cli/cli.h"\n',
        "bench/report/report.c": '#include "core/spb.h"\n  #  include "bench/run/run.h"\n',
        "cpu/kernels.c": '#include "formats/csr.h"\n#include "gpu/gpu.h"\n#include <stdio.h>\n',
        "gpu/spmv.cu": '#include "spmv_state.cuh"\n#include "cpu/spmv_cpu.h"\n',
        "core/spb.c": '#include "spb.h"\n',
        "formats/csr.c": '#include "csr.h"\n#include "../core/spb.h"\n',
    }
    for rel, text in files.items():
        path = os.path.join(tmp, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    found = sorted(arrows_up(tmp))
    check(found == [("bench/report/report.c", 2, "bench/report", "bench/run"),
                    ("bench/run/run.c", 2, "bench/run", "bench/cli"),
                    ("cpu/kernels.c", 2, "cpu", "gpu"),
                    ("formats/csr.c", 2, "formats", "../core/spb.h"),
                    ("gpu/spmv.cu", 2, "gpu", "cpu")],
          "the arrows up and sideways found, and only they: %s" % found)


def test_file_outputs_are_data():
    """A results file a reporter owns whole (run --md) is its own file and a
    row of bench/report/file_outputs.c: its reporter's open is named in at
    most three source files (its own, the row, reporter.h's declaration),
    and run's option parsing, help and checks name no format."""
    rows = open(os.path.join(SOURCE, "bench", "report", "file_outputs.c")).read()
    opens = re.findall(r"^\s*([a-z_]+_open)\},", rows, re.M)
    options = re.findall(r'^\s*\{"(--[a-z-]+)",', rows, re.M)
    check(opens and len(opens) == len(options), "the rows: %s %s" % (options, opens))
    for name in opens:
        where = []
        for folder, _, names in os.walk(SOURCE):
            if os.path.relpath(folder, SOURCE).split(os.sep)[0].startswith(("build", ".")):
                continue
            for n in names:
                if n.endswith(SOURCES) and name in open(os.path.join(folder, n),
                                                        errors="replace").read():
                    where.append(n)
        check(len(where) <= 3, "%s is named in %d files: %s" % (name, len(where), where))
    cli = os.path.join(SOURCE, "bench", "cli")
    for n in ("run_options.c", "run_outputs.c", "run_args.h"):
        text = open(os.path.join(cli, n)).read()
        named = [o for o in options if '"%s"' % o in text]
        check(not named, "bench/cli/%s names no file output's option: %s" % (n, named))


run_tests([test_includes_point_down, test_checker_flags_an_arrow_up, test_file_outputs_are_data],
          "spb_e2e_layers_",
          globals())
