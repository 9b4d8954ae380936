"""Shared helpers of the end-to-end tests: the checks and their tally, and
running the spbench binary named on the command line.

Each e2e_*.py is run as: e2e_NAME.py SPBENCH SOURCE_DIR
"""
import csv
import subprocess
import sys

SPBENCH, SOURCE = sys.argv[1], sys.argv[2]
_tally = {"passed": 0, "failed": 0}
_skipped = []
SKIP_CODE = 77  # CTest's SKIP_RETURN_CODE


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


def skip(what):
    """Records a part that could not run here (a missing tool): the test is
    then reported skipped, never passed, unless something failed."""
    _skipped.append(what)
    print("SKIPPED:", what, file=sys.stderr)


def finish():
    """Prints the tally in the form CI reads and exits with its verdict:
    failed (1), skipped in part (77, naming what), or passed (0)."""
    print("%d passed, %d failed, %d parts skipped" % (_tally["passed"], _tally["failed"],
                                                     len(_skipped)))
    if _tally["failed"]:
        sys.exit(1)
    if _skipped:
        print("not everything ran: " + "; ".join(_skipped))
        sys.exit(SKIP_CODE)
    sys.exit(0)
