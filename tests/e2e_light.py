"""End-to-end tests of spbench as a light instrument: bad inputs refused
before anything is measured; the CPU bandwidth measured once per machine
and reused (or given, or skipped), the header and the JSON saying which;
the processes of run --processes keep the parent's CPUs whatever placed the
threads; scripts/deps.sh waits for another apt.

usage: e2e_light.py SPBENCH SOURCE_DIR
"""
import json
import os
import subprocess
import time

from spbtest import SOURCE, check, skip, spbench, run_tests

BUNDLED = os.path.join(SOURCE, "matrices")
FAST = ["--kernels", "csr.serial", "--reps", "3", "--min-time", "0", "--warmup", "0",
        "--energy-s", "0"]


def test_usage_errors_first(tmp):
    """Inputs that cannot be used (a missing file, a malformed generator
    spec) are refused with exit 2, each named, before any measuring."""
    cage = os.path.join(BUNDLED, "cage4.mtx.gz")
    for items in (["nope.mtx.gz"], ["gen:lapd:10"], ["gen:lap3d"], ["gen:lap3d:0"],
                  [cage, "gen:rmat:5", os.path.join(tmp, "missing.mtx")]):
        start = time.time()
        r = spbench("run", *FAST, *items)
        took = time.time() - start
        bad = [i for i in items if i != cage]
        check(r.returncode == 2 and all(b in r.stderr for b in bad) and
              "# CPU bandwidth" not in r.stdout and took < 10,
              "%s: refused in %.1f s, each bad one named, nothing measured: %d %s" %
              (items, took, r.returncode, r.stderr.strip()[-300:]))


def test_bandwidth_kept(tmp):
    """The CPU bandwidth: given (--bandwidth GBPS: the rows' bound), none
    (no roofline fraction), reused from the cache file while fresh (the
    header and the JSON say from when), measured again when stale."""
    cache = os.path.join(tmp, "bw.tsv")
    env = dict(os.environ, SPB_BANDWIDTH_CACHE=cache)
    cage = os.path.join(BUNDLED, "cage4.mtx.gz")

    def run(*args):
        out = os.path.join(tmp, "bw.json")
        r = spbench("run", *FAST, "--threads", "1", "--force", "--json", out, *args, cage,
                    env=env)
        doc = json.load(open(out)) if r.returncode == 0 else {"rows": [{}], "machine": {}}
        return r, doc["rows"][0], doc.get("bandwidth", {})

    r, row, bw = run("--bandwidth", "42")
    check(r.returncode == 0 and "given (--bandwidth)" in r.stdout and
          row.get("bandwidth_gbs") == 42 and bw.get("cpu_source") == "given" and
          not os.path.exists(cache),
          "a given bandwidth is the rows' bound and is not kept: %s %s" % (row.get(
              "bandwidth_gbs"), r.stderr[-200:]))
    r, row, bw = run("--bandwidth", "none")
    check(r.returncode == 0 and row.get("roofline_frac") is None and
          bw.get("cpu_source") == "none" and "no roofline fraction" in r.stdout,
          "--bandwidth none: no roofline fraction, said: %s" % row.get("roofline_frac"))
    key = bw.get("cpu_key", "")
    now = time.time()
    with open(cache, "w") as f:  # this machine's figure, measured an hour ago
        f.write("%s\t1\t12.5\t12\t11\t30\t12.25\t12\t11\t30\t%.0f\n" % (key, now - 3600))
    r, row, bw = run()
    check(r.returncode == 0 and "reused: measured on this machine" in r.stdout and
          row.get("bandwidth_gbs") == 12.5 and bw.get("cpu_source") == "reused" and
          abs(bw.get("cpu_measured_at", 0) - (now - 3600)) < 2,
          "a fresh kept figure is reused, the header and JSON say so: %s %s" %
          (row.get("bandwidth_gbs"), bw))
    with open(cache, "w") as f:  # a week and a day old
        f.write("%s\t1\t12.5\t12\t11\t30\t12.25\t12\t11\t30\t%.0f\n" %
                (key, now - 8 * 86400))
    r, row, bw = run()
    check(r.returncode == 0 and "measured now" in r.stdout and bw.get("cpu_source") == "measured"
          and row.get("bandwidth_gbs") != 12.5,
          "a stale figure is measured again: %s" % bw.get("cpu_source"))
    r = spbench("run", *FAST, "--bandwidth", "fast", cage, env=env)
    check(r.returncode == 2 and "--bandwidth expects" in r.stderr, "--bandwidth fast is refused")


def test_time_by_phase(tmp):
    """The closing summary and the JSON say where the study's time went,
    phase by phase; the phases add up to the wall time with the rest."""
    out = os.path.join(tmp, "phases.json")
    r = spbench("run", *FAST, "--threads", "1", "--energy-s", "0.05", "--json", out,
                os.path.join(BUNDLED, "cage4.mtx.gz"))
    doc = json.load(open(out)) if r.returncode == 0 else {}
    t = doc.get("time_s") or {}
    parts = [k for k in t if k != "wall"]
    check(r.returncode == 0 and "# time: " in r.stdout and
          {"load", "bandwidth", "timing", "remeasure", "energy", "validation", "other"} <= set(t)
          and abs(sum(t[k] for k in parts) - t["wall"]) < 0.01 and t["timing"] > 0,
          "the phases of the run: %s %s" % (t, r.stdout[-300:]))


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


FAKE_APT = """#!/bin/sh
# apt-get as another apt's lock leaves it: update fails twice, then works
count=$(cat "$FAKE_DIR/updates" 2>/dev/null || echo 0)
for a in "$@"; do
  if [ "$a" = update ]; then
    echo $((count + 1)) > "$FAKE_DIR/updates"
    if [ "$count" -lt 2 ]; then
      echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 1 (apt-get)" >&2
      exit 100
    fi
    exit 0
  fi
  if [ "$a" = install ]; then echo installed > "$FAKE_DIR/installed"; exit 0; fi
done
exit 0
"""


def test_deps_waits_for_apt(tmp):
    """scripts/deps.sh waits for another apt's lock on the package lists
    (apt-get update failed at once with 'Could not get lock'), bounded."""
    fake = os.path.join(tmp, "fakebin")
    os.makedirs(fake, exist_ok=True)
    for name, text in (("apt-get", FAKE_APT), ("sudo", '#!/bin/sh\nexec "$@"\n')):
        with open(os.path.join(fake, name), "w") as f:
            f.write(text)
        os.chmod(os.path.join(fake, name), 0o755)
    env = dict(os.environ, PATH=fake + os.pathsep + os.environ["PATH"], FAKE_DIR=tmp,
               SPB_APT_RETRY_S="0.1")
    r = subprocess.run(["bash", os.path.join(SOURCE, "scripts", "deps.sh"),
                        "spb-no-such-package"], capture_output=True, text=True, env=env,
                       timeout=120)
    updates = open(os.path.join(tmp, "updates")).read().strip() if os.path.exists(
        os.path.join(tmp, "updates")) else "0"
    check(r.returncode == 0 and updates == "3" and os.path.exists(os.path.join(tmp, "installed")),
          "deps.sh tried update again while the lock was held, then installed: exit %d, %s "
          "updates, %s" % (r.returncode, updates, r.stderr[-300:]))


def test_deps_without_root(tmp):
    """Without root and a sudo that works, the main job's deps.sh names what
    it could not install and the command to run as root, and goes on when
    only optional packages are missing; the tests' (--tests) stops."""
    fake = os.path.join(tmp, "fakebin-noroot")
    os.makedirs(fake, exist_ok=True)
    for name, text in (("id", '#!/bin/sh\necho 1000\n'),
                       ("sudo", '#!/bin/sh\necho "sudo: a password is required" >&2\nexit 1\n')):
        with open(os.path.join(fake, name), "w") as f:
            f.write(text)
        os.chmod(os.path.join(fake, name), 0o755)
    env = dict(os.environ, PATH=fake + os.pathsep + os.environ["PATH"], SPB_APT_RETRY_S="0.1")
    deps = os.path.join(SOURCE, "scripts", "deps.sh")
    r = subprocess.run(["bash", deps, "spb-no-such-package"], capture_output=True, text=True,
                       env=env, timeout=120)
    check(r.returncode == 0 and "apt-get install spb-no-such-package" in r.stderr and
          "going on without spb-no-such-package" in r.stderr,
          "the main job goes on without an optional package it cannot install: exit %d, %s"
          % (r.returncode, r.stderr[-300:]))
    r = subprocess.run(["bash", deps, "--tests", "spb-no-such-package"], capture_output=True,
                       text=True, env=env, timeout=120)
    check(r.returncode == 1 and "apt-get install spb-no-such-package" in r.stderr,
          "the tests' packages are needed: exit %d, %s" % (r.returncode, r.stderr[-300:]))


def main():
    run_tests([test_usage_errors_first, test_bandwidth_kept, test_time_by_phase,
               test_processes_keep_cpus, test_deps_waits_for_apt, test_deps_without_root],
              "spb_e2e_light_", globals())


main()
