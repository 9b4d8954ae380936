"""Parse speed of spbench's Matrix Market reader against scipy.io.mmread on
the same file, in the same run (medians of REPEATS alternating runs).

usage: python3 scripts/compare_mmread.py SPBENCH [FILE.mtx]
Without FILE, writes gen:random:250000:8 (about 70 MB of text) to a
temporary file first. Needs python3-scipy.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import scipy
import scipy.io

REPEATS = 5


def main():
    spbench = sys.argv[1]
    tmp = None
    if len(sys.argv) > 2:
        path = sys.argv[2]
    else:
        tmp = tempfile.mkdtemp(prefix="spb_mmread_")
        path = os.path.join(tmp, "random.mtx")
        subprocess.run([spbench, "gen", "gen:random:250000:8", "-o", path], check=True)
    size_mb = os.path.getsize(path) / 1e6
    scipy_s, spb_s = [], []
    for _ in range(REPEATS):
        start = time.perf_counter()
        scipy.io.mmread(path)
        scipy_s.append(time.perf_counter() - start)
        out = subprocess.run([spbench, "info", path], check=True, capture_output=True,
                             text=True).stdout
        spb_s.append(float(re.search(r"parse\s+([0-9.]+) s", out).group(1)))
    t_scipy, t_spb = statistics.median(scipy_s), statistics.median(spb_s)
    print("file: %s, %.1f MB of text" % (path, size_mb))
    print("scipy %s mmread: median %.3f s (min %.3f, max %.3f): %.1f MB/s"
          % (scipy.__version__, t_scipy, min(scipy_s), max(scipy_s), size_mb / t_scipy))
    print("spbench parse:     median %.3f s (min %.3f, max %.3f): %.1f MB/s"
          % (t_spb, min(spb_s), max(spb_s), size_mb / t_spb))
    print("ratio: %.1fx" % (t_scipy / t_spb))
    if tmp:
        os.remove(path)
        os.rmdir(tmp)


main()
