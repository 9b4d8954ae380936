"""End-to-end tests of spbench as a light instrument: the processes of run
--processes keep the parent's CPUs whatever placed the threads.

usage: e2e_light.py SPBENCH SOURCE_DIR
"""
import os
import shutil
import tempfile

from spbtest import SOURCE, check, finish, skip, spbench

BUNDLED = os.path.join(SOURCE, "matrices")
FAST = ["--kernels", "csr.serial", "--reps", "3", "--min-time", "0", "--warmup", "0",
        "--energy-s", "0"]


def test_processes_keep_cpus(tmp):
    """Each process of run --processes sees every CPU the parent had (GNU's
    OpenMP bound the parent's first thread to one, which a child inherited:
    every '2-thread' row then ran on one core), with spbench's placement
    and with the user's own."""
    cpus = len(os.sched_getaffinity(0))
    if cpus < 2:
        skip("one CPU: nothing to lose")
        return
    for name, env in (("spbench's placement", {}),
                      ("the user's placement", {"OMP_PROC_BIND": "close", "OMP_PLACES": "cores"})):
        out = os.path.join(tmp, "p.csv")
        r = spbench("run", *FAST, "--threads", "1,2", "--processes", "2", "--force", "--csv",
                    out, os.path.join(BUNDLED, "cage4.mtx.gz"), env=dict(os.environ, **env))
        headers = [ln for ln in r.stdout.splitlines() if ln.startswith("# OpenMP:")]
        seen = [int(h.split()[2]) for h in headers]
        check(r.returncode == 0 and seen == [cpus, cpus] and "share cores" not in r.stderr,
              "%s: both processes on all %d CPUs: %s %s" % (name, cpus, headers,
                                                             r.stderr[-300:]))


def main():
    tmp = tempfile.mkdtemp(prefix="spb_e2e_light_")
    try:
        test_processes_keep_cpus(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


main()
