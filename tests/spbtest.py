"""Shared helpers of the end-to-end tests: the checks and their tally, and
running the spbench binary named on the command line.

Each e2e_*.py is run as: e2e_NAME.py SPBENCH SOURCE_DIR
"""
import csv
import subprocess
import sys

SPBENCH, SOURCE = sys.argv[1], sys.argv[2]
_tally = {"passed": 0, "failed": 0}


def check(cond, what):
    """Records one check; a failure prints what was expected."""
    if cond:
        _tally["passed"] += 1
    else:
        _tally["failed"] += 1
        print("FAILED:", what, file=sys.stderr)


def spbench(*args, **kw):
    return subprocess.run([SPBENCH, *args], capture_output=True, text=True, timeout=900, **kw)


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def finish():
    """Prints the tally in the form CI reads and exits with its verdict."""
    print("%d passed, %d failed" % (_tally["passed"], _tally["failed"]))
    sys.exit(1 if _tally["failed"] else 0)
