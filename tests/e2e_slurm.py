"""The Slurm scale-out path on a real one-node cluster: munged, slurmctld and
slurmd from Debian's packages, started here with their own configuration
and spool directories under a temporary folder; scripts/slurm/submit.sh
over a small study in 3 shards; the merged results checked against a
single run; then a second study with one array task cancelled midway
(scancel), whose resubmission completes the merge exactly; the daemons
stopped by their process ids.

Skipped (exit 77, with the reason) where Slurm cannot start: not root, or
the packages absent. With SPB_REQUIRE_SLURM=1 (CI, which installs them) a
skip is a failure.

usage: e2e_slurm.py SPBENCH SOURCE_DIR
"""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from spbtest import (SOURCE, SPBENCH, check, finish, read_rows, skip, skip_whole_test,
                     spbench)

BUNDLED = os.path.join(SOURCE, "matrices")
SUBMIT = os.path.join(SOURCE, "scripts", "slurm", "submit.sh")
STUDY = [os.path.join(BUNDLED, f) for f in ("cage4.mtx.gz", "west0479.mtx.gz", "mhda416.mtx.gz",
                                            "jagmesh7.mtx.gz", "olm1000.mtx.gz")] + ["gen:lap2d:60"]
FAST = ["--kernels", "csr.*,hll.serial.*", "--threads", "1,2", "--reps", "2", "--min-time", "0"]
SLOW = ["--kernels", "csr.*,hll.serial.*", "--threads", "1,2", "--reps", "20", "--min-time", "0.1"]
DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo")


def cannot_run():
    if os.geteuid() != 0:
        return "not root: the test starts munged, slurmctld and slurmd itself"
    missing = [d for d in DAEMONS if shutil.which(d) is None and
               not os.path.exists(os.path.join("/usr/sbin", d))]
    if missing:
        return "Slurm not installed (missing %s; apt-get install slurm-wlm munge)" % ", ".join(missing)
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def daemon(name):
    return shutil.which(name) or os.path.join("/usr/sbin", name)


class Cluster:
    """munged + slurmctld + slurmd for this host, all under root."""

    def __init__(self, root):
        self.root, self.pidfiles = root, []
        for d in ("munge", "state", "spool", "log"):
            os.makedirs(os.path.join(root, d))
        os.chmod(os.path.join(root, "munge"), 0o700)
        key = os.path.join(root, "munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        self.sock = os.path.join(root, "munge", "sock")
        self.conf = os.path.join(root, "slurm.conf")
        host = socket.gethostname().split(".")[0]
        with open(self.conf, "w") as f:
            f.write("\n".join([
                "ClusterName=spbtest", "SlurmctldHost=%s" % host,
                "SlurmctldPort=%d" % free_port(), "SlurmdPort=%d" % free_port(),
                "AuthType=auth/munge", "AuthInfo=socket=%s" % self.sock, "CredType=cred/munge",
                "SlurmUser=root", "SlurmdUser=root",
                "StateSaveLocation=%s/state" % root, "SlurmdSpoolDir=%s/spool" % root,
                "SlurmctldPidFile=%s/slurmctld.pid" % root, "SlurmdPidFile=%s/slurmd.pid" % root,
                "SlurmctldLogFile=%s/log/slurmctld.log" % root,
                "SlurmdLogFile=%s/log/slurmd.log" % root,
                "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
                "SwitchType=switch/none", "MpiDefault=none",
                "SelectType=select/cons_tres", "SelectTypeParameters=CR_CPU",
                "AccountingStorageType=accounting_storage/none", "JobCompType=jobcomp/none",
                "JobAcctGatherType=jobacct_gather/none", "ReturnToService=2",
                "NodeName=%s CPUs=%d State=UNKNOWN" % (host, os.cpu_count() or 1),
                "PartitionName=spbtest Nodes=%s Default=YES MaxTime=INFINITE State=UP" % host,
                ""]))
        self.env = dict(os.environ, SLURM_CONF=self.conf, OMPI_ALLOW_RUN_AS_ROOT="1",
                        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")  # the jobs run as root

    def start(self):
        munge = os.path.join(self.root, "munge")
        steps = [([daemon("munged"), "--force", "--socket=" + self.sock,
                   "--key-file=" + os.path.join(munge, "munge.key"),
                   "--log-file=" + os.path.join(self.root, "log", "munged.log"),
                   "--pid-file=" + os.path.join(munge, "munged.pid"),
                   "--seed-file=" + os.path.join(munge, "seed")], os.path.join(munge, "munged.pid")),
                 ([daemon("slurmctld"), "-f", self.conf], os.path.join(self.root, "slurmctld.pid")),
                 ([daemon("slurmd"), "-f", self.conf], os.path.join(self.root, "slurmd.pid"))]
        for argv, pidfile in steps:
            r = subprocess.run(argv, capture_output=True, text=True, env=self.env, timeout=60)
            self.pidfiles.append(pidfile)
            if r.returncode != 0:
                return "%s failed: %s" % (os.path.basename(argv[0]), r.stderr.strip()[-300:])
        deadline = time.time() + 60
        while time.time() < deadline:
            r = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True,
                               env=self.env)
            if r.returncode == 0 and "idle" in r.stdout:
                return None
            time.sleep(0.5)
        return "the node did not come up: %s" % self.log_tail()

    def log_tail(self):
        text = ""
        for name in ("slurmctld.log", "slurmd.log"):
            path = os.path.join(self.root, "log", name)
            if os.path.exists(path):
                text += open(path).read()[-400:]
        return text

    def stop(self):
        for pidfile in reversed(self.pidfiles):
            try:
                os.kill(int(open(pidfile).read().split()[0]), signal.SIGTERM)
            except (OSError, ValueError):
                pass

    def run(self, *argv):
        return subprocess.run(list(argv), capture_output=True, text=True, env=self.env, timeout=120)

    def wait_idle(self, limit):
        deadline = time.time() + limit
        while time.time() < deadline:
            if not self.run("squeue", "-h").stdout.strip():
                return True
            time.sleep(1)
        return False


def keys(rows):
    return sorted((r["matrix"], r["kernel"], r["threads"], r["status"]) for r in rows)


def submit(cluster, outdir, options):
    return cluster.run(SUBMIT, "--shards", "3", "--spbench", SPBENCH, outdir, *STUDY, "--",
                       *options)


def test_study(cluster, tmp, single):
    out = os.path.join(tmp, "study")
    r = submit(cluster, out, FAST)
    check(r.returncode == 0 and "merge job" in r.stdout, "submit.sh: %s %s" % (r.stdout, r.stderr))
    check(cluster.wait_idle(240), "the study finished within 4 minutes")
    results = os.path.join(out, "results.csv")
    merged = read_rows(results) if os.path.exists(results) else []
    check(keys(merged) == keys(single), "the merged study is a single run's rows (%d vs %d)"
          % (len(merged), len(single)))
    check(os.path.exists(os.path.join(out, "results.json")), "results.json merged")
    if shutil.which("gnuplot"):
        check(os.path.exists(os.path.join(out, "charts", "gflops.png")), "charts drawn")
    else:
        skip("no gnuplot: the sharded study's charts (apt-get install gnuplot-nox)", "gnuplot")


def test_ranks(cluster, tmp):
    """A 2-rank study through submit.sh --ranks: one allocation of 2 tasks in
    which spbench's mpirun measures 1 and 2 ranks, merged and charted."""
    if shutil.which("mpirun") is None:
        check(False, "mpirun is installed (scripts/deps.sh): the distributed study needs it")
        return
    out = os.path.join(tmp, "ranks")
    r = cluster.run(SUBMIT, "--shards", "1", "--ranks", "1,2", "--spbench", SPBENCH, out,
                    "gen:lap2d:40", os.path.join(BUNDLED, "west0479.mtx.gz"), "--",
                    "--kernels", "mpi.rows,petsc.mpiaij", "--reps", "2", "--min-time", "0")
    check(r.returncode == 0, "submit.sh --ranks: %s %s" % (r.stdout, r.stderr))
    check(cluster.wait_idle(240), "the distributed study finished within 4 minutes")
    results = os.path.join(out, "results.csv")
    rows = read_rows(results) if os.path.exists(results) else []
    got = sorted((x["matrix"], x["kernel"], x["ranks"], x["status"]) for x in rows)
    want = sorted((m, k, p, "ok") for m in ("gen:lap2d:40", "west0479")
                  for k in ("mpi.rows", "petsc.mpiaij") for p in ("1", "2"))
    log = os.path.join(out, "shard-1.log")
    check(got == want, "every distributed row at 1 and 2 ranks, ok: %s %s" %
          (got, open(log).read()[-800:] if os.path.exists(log) else ""))
    if shutil.which("gnuplot"):
        check(os.path.exists(os.path.join(out, "charts", "strong_scaling.png")),
              "the strong-scaling chart drawn")
    else:
        skip("no gnuplot: the distributed study's chart (apt-get install gnuplot-nox)", "gnuplot")


def test_cancel_and_resubmit(cluster, tmp, single):
    out = os.path.join(tmp, "cancelled")
    r = submit(cluster, out, SLOW)
    check(r.returncode == 0, "second study submitted: %s" % r.stderr)
    array = r.stdout.split("job array ")[1].split()[0] if "job array " in r.stdout else ""
    shard = os.path.join(out, "shard-2.csv")
    deadline = time.time() + 180
    while time.time() < deadline:  # task 2 has measured something, but not all
        if os.path.exists(shard) and sum(1 for _ in open(shard)) > 3:
            break
        time.sleep(0.2)
    cancelled = cluster.run("scancel", "%s_2" % array)
    check(cancelled.returncode == 0, "scancel %s_2: %s" % (array, cancelled.stderr))
    check(cluster.wait_idle(300), "the first round ended")
    partial = read_rows(shard) if os.path.exists(shard) else []
    results = os.path.join(out, "results.csv")
    first = read_rows(results) if os.path.exists(results) else []
    check(len(first) < len(single), "the cancelled round's merge is incomplete (%d of %d rows)"
          % (len(first), len(single)))
    r = submit(cluster, out, SLOW)
    check(r.returncode == 0, "resubmitted: %s" % r.stderr)
    check(cluster.wait_idle(300), "the resubmission finished")
    merged = read_rows(results) if os.path.exists(results) else []
    check(keys(merged) == keys(single),
          "after cancelling shard 2 at %d rows, the resubmission merges exactly (%d vs %d)"
          % (len(partial), len(merged), len(single)))


def test_hostile_names(cluster, tmp):
    """Issue 74 item 1: a matrix whose file name would run a command in a
    shell or in gnuplot goes through submit.sh, the shards, the merge job
    and its charts as a name (a SpGEMM study: its time chart's key names
    every matrix): its rows are merged, and nothing ran."""
    folder = os.path.join(tmp, "hostile")
    os.makedirs(folder)
    name = "c`touch${IFS}PWNED`'$(touch PWNED)\""
    shutil.copy(os.path.join(BUNDLED, "cage4.mtx.gz"), os.path.join(folder, name + ".mtx.gz"))
    out = os.path.join(tmp, "hostile-study")
    r = cluster.run(SUBMIT, "--shards", "2", "--spbench", SPBENCH, out,
                    os.path.join(folder, name + ".mtx.gz"),
                    os.path.join(BUNDLED, "west0479.mtx.gz"), "--", "--op", "spgemm",
                    "--kernels", "spgemm.gustavson", "--reps", "2", "--min-time", "0")
    check(r.returncode == 0, "submit.sh takes the name: %s %s" % (r.stdout, r.stderr))
    check(cluster.wait_idle(240), "the study finished within 4 minutes")
    results = os.path.join(out, "results.csv")
    merged = read_rows(results) if os.path.exists(results) else []
    check(name in {row["matrix"] for row in merged}, "its rows are merged under its name: %s"
          % sorted({row["matrix"] for row in merged}))
    if shutil.which("gnuplot"):
        check(os.path.exists(os.path.join(out, "charts", "spgemm_time.png")), "charts drawn")
    else:
        skip("no gnuplot: the hostile-name study's charts (apt-get install gnuplot-nox)", "gnuplot")
    made = [os.path.join(d, f) for d, _, files in os.walk(tmp) for f in files if f == "PWNED"]
    check(not made, "nothing ran: %s" % made)


def main():
    skip_whole_test(cannot_run(), "SPB_REQUIRE_SLURM")
    tmp = tempfile.mkdtemp(prefix="spb_e2e_slurm_")
    os.chmod(tmp, 0o755)
    cluster = Cluster(os.path.join(tmp, "cluster"))
    try:
        failure = cluster.start()
        check(failure is None, "a one-node Slurm cluster starts: %s" % failure)
        if failure is None:
            single_csv = os.path.join(tmp, "single.csv")
            spbench("run", *FAST, "--quiet", "--csv", single_csv, *STUDY)
            single = read_rows(single_csv)
            test_study(cluster, tmp, single)
            test_ranks(cluster, tmp)
            test_cancel_and_resubmit(cluster, tmp, single)
            test_hostile_names(cluster, tmp)
    finally:
        cluster.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


main()
