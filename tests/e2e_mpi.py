"""The distributed rows under real MPI (Open MPI's mpirun, oversubscribed on
small machines): every distribution at 1 to 4 ranks validated on a bundled
matrix, a rectangular one with empty rows, one with fewer rows than ranks
and a pattern matrix; hybrid ranks x threads; the bytes each exchange moves
against an independent count of the ghost entries; a rank that fails
(memory refused on one rank), a rank that is killed, and a file that cannot
be read, each ending in rows or an error and never in a hang; Ctrl-C
stopping every rank cleanly; weak scaling's growing matrices; the rows
without MPI saying why; the header naming Open MPI's shared-memory copy.

Skipped (exit 77) without mpirun or a spbench built without MPI; with
SPB_REQUIRE_MPI=1 (CI) a skip is a failure.

usage: e2e_mpi.py SPBENCH SOURCE_DIR
"""
import json
import os
import random
import re
import shutil
import signal
import subprocess
import time

from spbtest import (SPBENCH, SOURCE, check, read_mtx, read_rows, run_tests, skip,
                     skip_whole_test)

KERNELS = ["mpi.rows.allgather", "mpi.rows", "mpi.nnz", "mpi.nnz.allgather", "mpi.cyclic",
           "mpi.grid2d", "petsc.mpiaij"]
# a GPU per rank: ok where there is a GPU (NCCL's row only with a GPU per rank), else skipped
GPU_KERNELS = ["mpi.cuda.staged", "mpi.cuda.nccl", "mpi.cuda.peer"]
GPU_SKIPS = ("no CUDA device", "not built with CUDA", "without NCCL", "NCCL needs a GPU per rank",
             "no GPU on this rank's node")
FAST = ["--reps", "3", "--min-time", "0", "--warmup", "1", "--quiet"]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1",
           ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")  # Open MPI's own


def run(args, timeout=300):
    return subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=timeout)


def petsc_built():
    """PETSc's row is built where pkg-config finds PETSc; CI installs it."""
    return "PETSc compiled in" in run([SPBENCH, "--version"]).stdout


def cannot_run():
    if not shutil.which("mpirun"):
        return "no mpirun (scripts/deps.sh installs Open MPI)"
    if "MPI compiled in" not in run([SPBENCH, "--version"]).stdout:
        return "spbench was built without MPI"
    return None


def write_mtx(path, m, n, entries, field="real"):
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate %s general\n%d %d %d\n" % (field, m, n,
                                                                             len(entries)))
        for (i, j), v in sorted(entries.items()):
            f.write("%d %d\n" % (i + 1, j + 1) if field == "pattern" else
                    "%d %d %.17g\n" % (i + 1, j + 1, v))


def fixture_matrices(tmp):
    """A rectangular matrix with empty rows, one with fewer rows than ranks,
    a pattern matrix, and a bundled one."""
    rng = random.Random(7)
    rect = {(i, rng.randrange(13)): rng.uniform(-1, 1) for i in range(9) if i % 3 != 1}
    write_mtx(os.path.join(tmp, "rect.mtx"), 9, 13, rect)
    write_mtx(os.path.join(tmp, "tiny.mtx"), 3, 3, {(0, 0): 2.0, (1, 2): -1.5, (2, 1): 0.5})
    pattern = {(i, rng.randrange(60)): 1.0 for i in range(60) for _ in range(3)}
    write_mtx(os.path.join(tmp, "graph.mtx"), 60, 60, pattern, field="pattern")
    return [os.path.join(SOURCE, "matrices", "west0479.mtx.gz"),
            os.path.join(tmp, "rect.mtx"), os.path.join(tmp, "tiny.mtx"),
            os.path.join(tmp, "graph.mtx")]


def left_out(stdout):
    """The kernels the run's header says were left out (this machine cannot
    run them: no GPU, PETSc not built)."""
    names = []
    for line in stdout.splitlines():
        if line.startswith("# left out: "):
            names += [n.strip() for n in line.split("(", 1)[1].split(")", 1)[0].split(",")]
    return names


def test_every_distribution(tmp, matrices):
    """--ranks 1-4 starts mpirun itself; each row validated on rank 0."""
    csv_path = os.path.join(tmp, "scaling.csv")
    bad = os.path.join(tmp, "bad.mtx")
    with open(bad, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 9 1.0\n")
    r = run([SPBENCH, "run", "--ranks", "1-4", "--threads", "1", *FAST, "--csv", csv_path,
             "--json", os.path.join(tmp, "scaling.json"), *matrices, bad])
    rows = read_rows(csv_path)
    check(r.returncode == 1, "the unreadable file makes the exit status 1: %d %s" %
          (r.returncode, r.stderr[-2000:]))
    bad_rows = [x for x in rows if x["matrix"] == "bad"]
    check(len(bad_rows) == 1 and bad_rows[0]["status"] == "error",
          "a file rank 0 cannot read is one error row, and the study goes on")
    for path in matrices:
        name = os.path.basename(path).split(".")[0]
        mine = [x for x in rows if x["matrix"] == name]
        got = sorted((x["kernel"], int(x["ranks"])) for x in mine)
        expected = [k for k in KERNELS + GPU_KERNELS if k not in left_out(r.stdout)]
        check(got == sorted((k, p) for k in expected for p in range(1, 5)),
              "%s: one row per distributed kernel this machine runs and rank count 1-4: %s"
              % (name, sorted({k for k, _ in got})))
        wrong = [(x["kernel"], x["ranks"], x["status"], x["message"]) for x in mine
                 if x["status"] != "ok" and not (x["kernel"] in GPU_KERNELS and
                                                 x["status"] == "skipped" and
                                                 any(s in x["message"] for s in GPU_SKIPS))
                 and not (x["kernel"] == "petsc.mpiaij" and not petsc_built())]
        check(not wrong, "%s: every distributed row validated ok (GPU rows: or skipped, saying "
              "why): %s" % (name, wrong[:4]))
        one = [x for x in mine if x["ranks"] == "1" and x["status"] == "ok"]
        check(all(float(x["rank_speedup"]) == 1.0 for x in one),
              "%s: rank_speedup is 1 at one rank" % name)
        for x in mine:
            if x["status"] != "ok" or x["ranks"] == "1":
                continue
            t1 = [float(y["time_ms_median"]) for y in one if y["kernel"] == x["kernel"]][0]
            check(abs(float(x["rank_speedup"]) - t1 / float(x["time_ms_median"])) <
                  1e-3 * float(x["rank_speedup"]) + 1e-4,
                  "%s %s@%s: speedup over its own one-rank row" % (name, x["kernel"], x["ranks"]))
    charts = os.path.join(tmp, "charts")
    if shutil.which("gnuplot"):
        r = run([SPBENCH, "plot", csv_path, charts])
        check(r.returncode == 0 and all(os.path.getsize(os.path.join(charts, c + ".png")) > 0
                                        for c in ("strong_scaling", "comm_split")),
              "plot draws strong scaling and the communication split: %s" % r.stderr)
        # the rank counts past the machine's cores (from the JSON beside the CSV) are marked
        with open(os.path.join(tmp, "scaling.json")) as f:
            cores = json.load(f)["machine"]["cpu_cores"]
        with open(os.path.join(charts, "strong_scaling.svg")) as f:
            svg = f.read()
        marked = {p for p in range(1, 5) if re.search(r"<text>\s*%d\*\s*</text>" % p, svg)}
        check(marked == {p for p in range(1, 5) if p > cores} and
              (("than the machine's %d cores" % cores) in svg) == bool(marked),
              "the strong-scaling chart marks the rank counts past the %d cores: %s" %
              (cores, sorted(marked)))
    else:
        skip("no gnuplot: the strong-scaling charts (apt-get install gnuplot-nox)", "gnuplot")
    return rows


def owners_by_rule(kernel, count, ranks, row_lengths=None):
    """Each index's rank under the kernel's layout, computed here from the rule."""
    if kernel == "mpi.cyclic":
        return [i % ranks for i in range(count)]
    if kernel.startswith("mpi.nnz") and row_lengths is not None:
        starts, total = [0], 0
        for length in row_lengths:
            total += length
            starts.append(total)
        bounds = []
        for p in range(ranks + 1):
            target = total * p // ranks
            bounds.append(count if p == ranks else
                          next(r for r in range(count + 1) if starts[r] >= target))
    else:
        bounds = [count * p // ranks for p in range(ranks + 1)]
    owner = [0] * count
    for p in range(ranks):
        for i in range(bounds[p], bounds[p + 1]):
            owner[i] = p
    return owner


def expected_exchange(kernel, m, n, entries, ranks):
    """Bytes each rank sends per product (max, mean) and the most neighbours,
    counted from the matrix: the ghost entries each rank's rows need."""
    lengths = [0] * m
    for (i, _j) in entries:
        lengths[i] += 1
    row_owner = owners_by_rule(kernel, m, ranks, lengths)
    col_owner = row_owner if m == n else owners_by_rule("mpi.cyclic" if kernel == "mpi.cyclic"
                                                        else "mpi.rows", n, ranks)
    if kernel.endswith(".allgather"):
        owned = [col_owner.count(p) for p in range(ranks)]
        return (8 * max(owned) * (ranks - 1), 8 * n * (ranks - 1) / ranks, ranks - 1)
    ghosts = [set() for _ in range(ranks)]
    for (i, j) in entries:
        if col_owner[j] != row_owner[i]:
            ghosts[row_owner[i]].add(j)
    sent = [0] * ranks
    links = [set() for _ in range(ranks)]
    for p in range(ranks):
        for j in ghosts[p]:
            sent[col_owner[j]] += 1
            links[p].add(col_owner[j])
            links[col_owner[j]].add(p)
    return (8 * max(sent), 8 * sum(sent) / ranks, max(len(x) for x in links))


def expected_imbalance(kernel, m, entries, ranks):
    """The most entries a rank stores over the mean, counted from the rows
    each rank owns under the kernel's rule (1-D: whole rows)."""
    lengths = [0] * m
    for (i, _j) in entries:
        lengths[i] += 1
    stored = [0] * ranks
    for i, p in enumerate(owners_by_rule(kernel, m, ranks, lengths)):
        stored[p] += lengths[i]
    return max(stored) / (sum(stored) / ranks)


def test_exchange_counts(every_distribution, matrices):
    """The plan moves exactly the ghost entries; the all-gather all of x;
    the imbalance is the stored entries' (it read 1 for every all-gather
    row, whose part had been handed on before it was counted)."""
    rows = every_distribution
    for path in matrices[:2]:
        name = os.path.basename(path).split(".")[0]
        m, n, entries = read_mtx(path)
        for kernel in ("mpi.rows", "mpi.nnz", "mpi.cyclic", "mpi.rows.allgather",
                       "mpi.nnz.allgather"):
            for ranks in (2, 3, 4):
                row = [x for x in rows if x["matrix"] == name and x["kernel"] == kernel and
                       x["ranks"] == str(ranks)]
                if not row or row[0]["status"] != "ok":
                    check(False, "%s %s@%d measured" % (name, kernel, ranks))
                    continue
                most, mean, neighbours = expected_exchange(kernel, m, n, entries, ranks)
                got = (float(row[0]["bytes_sent_max"]), float(row[0]["bytes_sent_mean"]),
                       float(row[0]["neighbours"]))
                check(abs(got[0] - most) < 0.5 and abs(got[1] - mean) < 1e-3 * max(mean, 1) and
                      got[2] == neighbours,
                      "%s %s@%d moves what the matrix needs: %s, counted %s" %
                      (name, kernel, ranks, got, (most, mean, neighbours)))
                imbalance = expected_imbalance(kernel, m, entries, ranks)
                check(abs(float(row[0]["imbalance"]) - imbalance) < 1e-3 * imbalance,
                      "%s %s@%d: imbalance %s, counted %.4f" %
                      (name, kernel, ranks, row[0]["imbalance"], imbalance))


def test_hybrid(tmp, matrices):
    """2 ranks x 2 threads: every row but PETSc's (one thread per rank) ok."""
    csv_path = os.path.join(tmp, "hybrid.csv")
    r = run([SPBENCH, "run", "--ranks", "2", "--threads", "2", *FAST, "--csv", csv_path,
             matrices[0]])
    rows = read_rows(csv_path)
    check(r.returncode == 0, "a hybrid study runs: %s" % r.stderr[-1000:])
    ok = sorted(x["kernel"] for x in rows if x["status"] == "ok" and x["threads"] == "2")
    check(ok == sorted(KERNELS[:-1]), "each mpi.* row ok at 2 ranks x 2 threads: %s" % ok)
    gpu = [x for x in rows if x["kernel"] in GPU_KERNELS]
    gone = [k for k in GPU_KERNELS if k in left_out(r.stdout)]
    check(len(gpu) == len(GPU_KERNELS) - len(gone) and all(x["status"] == "skipped" for x in gpu),
          "the GPU rows are skipped at 2 threads per rank (left out without a GPU: %s): %s" %
          (gone, [x["message"] for x in gpu]))
    petsc = [x for x in rows if x["kernel"] == "petsc.mpiaij"]
    check(len(petsc) == 1 and petsc[0]["status"] == "skipped" and
          ("one thread per rank" in petsc[0]["message"] or not petsc_built()),
          "PETSc's row says why it is skipped")


def test_shared_memory_copy(tmp, matrices):
    """The header names the single-copy mechanism Open MPI's shared memory
    runs with among a node's ranks (what bounds a large message between
    them), as the library reads it: the one a user chose, and none where
    one rank has no other on its node."""
    header = {}
    for mechanism in ("none", "emulated", ""):
        env = dict(ENV, OMPI_MCA_btl_vader_single_copy_mechanism=mechanism) if mechanism else ENV
        r = subprocess.run([SPBENCH, "run", "--ranks", "1,2", "--kernels", "mpi.rows", *FAST,
                            "--csv", os.path.join(tmp, "copy-%s.csv" % mechanism), matrices[0]],
                           capture_output=True, text=True, env=env, timeout=300)
        line = [x for x in r.stdout.splitlines() if x.startswith("# MPI: ")]
        header[mechanism] = line[0] if line else ""
        check(r.returncode == 0 and line, "a run with single copy '%s': %s" %
              (mechanism, r.stderr[-500:]))
    for mechanism in ("none", "emulated"):
        check(header[mechanism].endswith("; Open MPI's shared memory: single copy %s" % mechanism),
              "the header names the single copy chosen (%s): %s" % (mechanism, header[mechanism]))
    check(re.search(r"; Open MPI's shared memory: single copy [a-z]+$", header[""]),
          "the header names the default's too: %s" % header[""])
    alone = run([SPBENCH, "run", "--ranks", "1", "--kernels", "mpi.rows", *FAST,
                 "--csv", os.path.join(tmp, "copy-alone.csv"), matrices[0]])
    check("shared memory" not in alone.stdout,
          "one rank shares its node with none: the header does not name a copy")


def test_failing_rank(tmp, matrices):
    """One rank refuses its part (a memory limit on rank 1 alone): the rows
    at 2 ranks are errors naming the rank; the study ends."""
    csv_path = os.path.join(tmp, "failing.csv")
    args = ["run", "--ranks", "1,2", "--kernels", "mpi.rows,mpi.grid2d", *FAST, "--csv",
            csv_path, matrices[0]]
    r = run(["mpirun", "--oversubscribe", "-np", "1", SPBENCH, *args, ":", "-np", "1", "-x",
             "SPB_MEMORY_LIMIT=1000", SPBENCH, *args], timeout=120)
    rows = read_rows(csv_path)
    at_two = [x for x in rows if x["ranks"] == "2"]
    check(r.returncode == 1, "rank 1's failure makes the exit status 1: %d" % r.returncode)
    check(len(at_two) == 2 and all(x["status"] == "error" and "rank 1 of 2" in x["message"] and
                                   "SPB_MEMORY_LIMIT" in x["message"] for x in at_two),
          "the rows at 2 ranks are errors naming rank 1 and its limit: %s" %
          [x["message"] for x in at_two])
    check(all(x["status"] == "ok" for x in rows if x["ranks"] == "1"),
          "the rows at 1 rank are ok")


def rank_pid(rank):
    """The process id of world rank `rank` of a running spbench job."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % pid, "rb") as f:
                env = f.read().split(b"\0")
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if b"OMPI_COMM_WORLD_RANK=%d" % rank in env and b"spbench" in cmd:
            return int(pid)
    return None


def stderr_when_ended(job, timeout, what):
    """The job's standard error once it ended; a job still running after
    timeout seconds is killed and the check `what` fails."""
    try:
        return job.communicate(timeout=timeout)[1]
    except subprocess.TimeoutExpired:
        job.kill()
        check(False, what)
        return job.communicate()[1]


def test_killed_rank(tmp, matrices):
    """A rank killed mid-row ends the job (no hang); the launcher starts it
    again (--resume) and the row cut short is measured once more, as a
    plain run redoes a row a kill cut: every row once, all ok."""
    csv_path = os.path.join(tmp, "killed.csv")
    args = [SPBENCH, "run", "--ranks", "2", "--kernels", "mpi.rows", "--reps", "3",
            "--min-time", "0.5", "--quiet", "--csv", csv_path, *matrices]
    job = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=ENV)
    deadline, victim = time.time() + 60, None
    while time.time() < deadline and victim is None:
        time.sleep(0.2)
        if os.path.exists(csv_path) and len(read_rows(csv_path)) >= 1:
            victim = rank_pid(1)
    check(victim is not None, "rank 1 found while the study runs")
    if victim:
        os.kill(victim, signal.SIGKILL)
    err = stderr_when_ended(job, 120, "a killed rank must not hang the study")
    rows = read_rows(csv_path)
    check(job.returncode == 0 and len(rows) == len(matrices) and
          len({x["matrix"] for x in rows}) == len(matrices) and
          all(x["status"] == "ok" for x in rows),
          "the study ends with every matrix's row once, all ok: exit %d, %d rows: %s %s" %
          (job.returncode, len(rows), [(x["matrix"], x["status"]) for x in rows], err[-800:]))
    check("measuring that row once more" in err, "the launcher says it measures the row again: %s"
          % err[-400:])


def test_rank_killed_twice(tmp, matrices):
    """A row whose rank dies in both tries is recorded as an error row (a
    row that ends its job every time must not be tried for ever); the
    other rows are measured."""
    csv_path = os.path.join(tmp, "twice.csv")
    args = [SPBENCH, "run", "--ranks", "2", "--kernels", "mpi.rows", "--reps", "3",
            "--min-time", "0.5", "--quiet", "--csv", csv_path, *matrices]
    job = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=ENV)
    in_flight = "/tmp/spbench-row.%d" % job.pid
    row, victims, deadline = None, [], time.time() + 120
    while time.time() < deadline and len(victims) < 2 and job.poll() is None:
        time.sleep(0.1)
        try:
            with open(in_flight) as f:
                now = f.read()
        except OSError:
            continue
        victim = rank_pid(1)
        if now and victim and victim not in victims and (row is None or now == row):
            row = now
            os.kill(victim, signal.SIGKILL)
            victims.append(victim)
    check(len(victims) == 2, "rank 1 killed twice in one row: %d kills" % len(victims))
    err = stderr_when_ended(job, 120, "a rank killed twice must not hang the study")
    rows = read_rows(csv_path)
    errors = [x for x in rows if x["status"] == "error"]
    check(job.returncode == 1 and len(rows) == len(matrices) and
          len({x["matrix"] for x in rows}) == len(matrices),
          "every matrix's row once: exit %d, %d rows: %s" % (job.returncode, len(rows),
                                                             err[-800:]))
    check(len(errors) == 1 and "twice" in errors[0]["message"] and
          all(x["status"] == "ok" for x in rows if x not in errors),
          "the row killed twice is an error row saying so; the others ok: %s" %
          [(x["matrix"], x["status"], x["message"]) for x in rows])


def child_named(parent, name):
    """The process id of `parent`'s child called `name`, or None."""
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open("/proc/%s/comm" % pid) as f:
                comm = f.read().strip()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == parent and comm == name:
            return int(pid)
    return None


def test_killed_mpirun(tmp, matrices):
    """mpirun itself killed mid-row (kill -9): the ranks end with it, the
    launcher measures the row in flight once more and then the rest; no row
    is written twice (rank 0 once wrote on after the launcher had recorded
    its row's error row), and the JSON holds the CSV's rows."""
    csv_path, json_path = os.path.join(tmp, "mpirun.csv"), os.path.join(tmp, "mpirun.json")
    args = [SPBENCH, "run", "--ranks", "1,2", "--kernels", "mpi.rows,mpi.nnz", "--reps", "3",
            "--min-time", "0.3", "--quiet", "--csv", csv_path, "--json", json_path, *matrices]
    job = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=ENV, start_new_session=True)
    deadline, victim = time.time() + 60, None
    while time.time() < deadline and victim is None:
        time.sleep(0.2)
        if os.path.exists(csv_path) and len(read_rows(csv_path)) >= 2:
            victim = child_named(job.pid, "mpirun")
    check(victim is not None, "mpirun found while the study runs")
    if victim:
        os.kill(victim, signal.SIGKILL)
    err = stderr_when_ended(job, 180, "a killed mpirun must not hang the study")
    rows = read_rows(csv_path)
    keys = [(x["matrix"], x["kernel"], x["ranks"]) for x in rows]
    check(len(keys) == len(set(keys)) == 4 * len(matrices),
          "every row once after mpirun was killed: %d rows, %d keys, %d expected: %s" %
          (len(keys), len(set(keys)), 4 * len(matrices), err[-600:]))
    with open(json_path) as f:
        json_keys = sorted((x["matrix"], x["kernel"], str(x["ranks"])) for x in json.load(f)["rows"])
    check(json_keys == sorted(keys), "the JSON holds the CSV's rows, once each")


def test_killed_rank0_between_rows(tmp, matrices):
    """Rank 0 killed before its first row (no row in flight): the launcher
    says how to go on, and leaves no empty or cut JSON (rank 0 writes the
    JSON whole at the end); the resumed study completes."""
    csv_path, json_path = os.path.join(tmp, "early.csv"), os.path.join(tmp, "early.json")
    # the first matrix takes rank 0 seconds to generate: its row starts late
    matrices = ["gen:lap3d:120"] + matrices
    args = [SPBENCH, "run", "--ranks", "2", "--kernels", "mpi.rows", "--reps", "3",
            "--min-time", "0.1", "--quiet", "--csv", csv_path, "--json", json_path, *matrices]
    job = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=ENV, start_new_session=True)
    deadline, victim = time.time() + 60, None
    while time.time() < deadline and victim is None:
        victim = rank_pid(0)
        time.sleep(0.02)
    while time.time() < deadline and not (os.path.exists(csv_path) and
                                           os.path.getsize(csv_path) > 0):
        time.sleep(0.02)
    check(victim is not None, "rank 0 found once it wrote the CSV header")
    if victim:
        os.kill(victim, signal.SIGKILL)
    err = stderr_when_ended(job, 120, "a killed rank 0 must not hang the study")
    check(not read_rows(csv_path), "rank 0 was killed before its first row")
    check(job.returncode != 0 and "--resume" in err and "ended" in err,
          "the launcher says the job ended and how to go on: exit %d: %s" %
          (job.returncode, err[-600:]))
    if os.path.exists(json_path):
        with open(json_path) as f:
            text = f.read()
        check(text != "", "no empty JSON left behind")
        if text:
            json.loads(text)
    r = run(args + ["--resume"])
    with open(json_path) as f:
        rows = json.load(f)["rows"]
    check(r.returncode == 0 and len(rows) == len(read_rows(csv_path)) == len(matrices),
          "the resumed study completes: %d rows in the JSON" % len(rows))


def test_stop(tmp, matrices):
    """Ctrl-C (SIGINT to the terminal's process group) under run --ranks: the
    row in flight finishes on every rank, the JSON closes, exit 130."""
    csv_path, json_path = os.path.join(tmp, "stop.csv"), os.path.join(tmp, "stop.json")
    args = [SPBENCH, "run", "--ranks", "1,2", "--kernels", "mpi.rows", "--reps", "3",
            "--min-time", "0.5", "--quiet", "--csv", csv_path, "--json", json_path, *matrices]
    job = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=ENV, start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline and not (os.path.exists(csv_path) and read_rows(csv_path)):
        time.sleep(0.2)
    os.killpg(job.pid, signal.SIGINT)
    try:
        _out, err = job.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        job.kill()
        err = "hung"
    with open(json_path) as f:
        closed = json.load(f)
    check(job.returncode == 130 and closed.get("interrupted", {}).get("signal") == 2 and
          "--resume" in err, "Ctrl-C stops the ranks cleanly: %s %s" % (job.returncode, err[-800:]))
    online = os.sysconf("SC_NPROCESSORS_ONLN")
    check(closed["machine"]["cpu_cores"] == online and
          closed["load_before"]["cores"] == online and
          1 <= closed["machine"]["cpu_cores_used"] <= online,
          "the JSON records the machine's cores, and rank 0's share apart: %s %s" %
          (closed["machine"].get("cpu_cores"), closed["load_before"]))
    check("\n  %s run " % os.path.realpath(SPBENCH) in err,
          "the resume hint names the program that ran, so it can be pasted: %s" % err[-400:])
    r = run(args + ["--resume"])
    rows = read_rows(csv_path)
    check(r.returncode == 0 and len(rows) == 2 * len(matrices),
          "the resumed study completes: %d rows" % len(rows))


def test_weak(tmp):
    """--weak: each spec is the matrix per rank, grown with the rank count."""
    csv_path = os.path.join(tmp, "weak.csv")
    r = run([SPBENCH, "run", "--ranks", "1-3", "--weak", "--kernels", "mpi.rows", *FAST,
             "--csv", csv_path, "gen:lap3d:5", "gen:random:50:3"])
    rows = read_rows(csv_path)
    check(r.returncode == 0 and len(rows) == 6, "a weak-scaling study runs: %s" % r.stderr[-500:])
    for spec, per_rank in (("gen:lap3d:5", 125), ("gen:random:50:3", 50)):
        mine = sorted((int(x["ranks"]), int(x["rows"])) for x in rows
                      if x["matrix"] == spec + "/rank" and x["status"] == "ok")
        check(mine == [(p, per_rank * p) for p in (1, 2, 3)],
              "%s grows with the ranks, %d rows per rank: %s" % (spec, per_rank, mine))
    for x in rows:
        t1 = [float(y["time_ms_median"]) for y in rows
              if y["matrix"] == x["matrix"] and y["ranks"] == "1"][0]
        eff = t1 / float(x["time_ms_median"])
        check(abs(float(x["rank_efficiency"]) - eff) < 1e-3 * eff + 1e-4 and
              abs(float(x["rank_speedup"]) - eff * int(x["ranks"])) < 1e-3 * eff * 4 + 1e-4,
              "weak efficiency t1/tP and scaled speedup P*t1/tP: %s" % x["rank_efficiency"])
    charts = os.path.join(tmp, "weak_charts")
    if shutil.which("gnuplot"):
        r = run([SPBENCH, "plot", csv_path, charts])
        check(r.returncode == 0 and
              os.path.getsize(os.path.join(charts, "weak_scaling.png")) > 0 and
              not os.path.exists(os.path.join(charts, "gflops.png")),
              "plot draws the distributed charts, not the one-process ones: %s" % r.stderr)
    else:
        skip("no gnuplot: the weak-scaling charts (apt-get install gnuplot-nox)", "gnuplot")
    r = run([SPBENCH, "run", "--ranks", "1,3", "--weak", *FAST, "gen:rmat:4:2"])
    check(r.returncode == 2 and "powers of 2" in r.stderr, "R-MAT grows by powers of 2 only")
    r = run([SPBENCH, "run", "--ranks", "1,2", "--weak", *FAST,
             os.path.join(SOURCE, "matrices", "west0479.mtx.gz")])
    check(r.returncode == 2 and "not a generator spec" in r.stderr,
          "--weak refuses a file: %s" % r.stderr[-300:])


def test_summary_table(matrices):
    """A --ranks study's closing table: a line per matrix and rank count with
    its ranks, rank speedup, time split, bytes, neighbours and balance in
    columns of their own (it once showed thr 1 and kernel@P)."""
    r = run([SPBENCH, "run", "--ranks", "1,2", "--kernels", "mpi.rows,mpi.nnz", *FAST,
             matrices[0], matrices[3]], timeout=120)
    lines = r.stdout.splitlines()
    at = [i for i, ln in enumerate(lines) if ln.startswith("# best distributed row")]
    check(r.returncode == 0 and len(at) == 1, "the distributed summary is printed: %s" %
          r.stdout[-600:])
    if at:
        head = lines[at[0] + 1].split()
        body = [[t for t in ln.split() if t != "*"] for ln in lines[at[0] + 2:at[0] + 6]]
        check(head[:4] == ["matrix", "ranks", "thr", "best"] and
              all(c in head for c in ("rank_spd", "comm_ms", "MB_sent", "nbrs", "imbal")),
              "its columns: %s" % head)
        check(sorted(row[1] for row in body) == ["1", "1", "2", "2"] and
              all("@" not in row[3] for row in body) and
              all(len(row) == len(head) - 1 for row in body),
              "a line per matrix and rank count, the kernel without @P, every column "
              "in line: %s" % body)
        # ranked by time; beside it the speedup over the best row at one rank
        at_one = {row[0]: float(row[4]) for row in body if row[1] == "1"}
        spd = head.index("spd_best1") - 1 if "spd_best1" in head else None
        check(spd is not None and all(
            abs(float(row[spd]) - at_one[row[0]] / float(row[4])) <= 0.01 * at_one[row[0]] /
            float(row[4]) + 0.006 for row in body if row[1] == "2"),
            "spd_best1 is the best 1-rank time over the row's: %s" % body)


def test_usage(matrices):
    r = run([SPBENCH, "run", "--kernels", "mpi.rows", *FAST, matrices[2]])
    check(r.returncode == 3 and "skipped" in r.stdout and "not under MPI" in r.stdout,
          "outside MPI a distributed row is skipped, saying why (nothing measured: exit 3): "
          "%d %s" % (r.returncode, r.stdout[-500:]))
    r = run([SPBENCH, "run", "--ranks", "1", "--kernels", "mpi.rows", "--precision", "fp32",
             *FAST, matrices[2]], timeout=60)
    check(r.returncode == 3 and "no fp32 version" in r.stdout,
          "a kernel without an fp32 version (the MPI rows) is skipped with the reason: %s" %
          r.stdout[-500:])
    no_mpirun = dict(ENV, PATH=os.path.join(os.path.dirname(SPBENCH), "no-such-folder"))
    r = subprocess.run([SPBENCH, "run", "--ranks", "2", "--kernels", "mpi.rows", *FAST,
                        matrices[2]], capture_output=True, text=True, env=no_mpirun, timeout=60)
    check(r.returncode == 2 and "needs mpirun" in r.stderr and "--resume" not in r.stderr,
          "no mpirun on PATH: a usage error, no --resume to give: %s" % r.stderr[-500:])
    r = run(["mpirun", "-np", "2", SPBENCH, "run", "--ranks", "4", *FAST, matrices[2]],
            timeout=60)
    check(r.returncode == 2 and "the launcher started 2" in r.stderr,
          "--ranks beyond the ranks started is a usage error: %s" % r.stderr[-500:])
    r = run([SPBENCH, "run", "--ranks", "1,2", "--kernels", "mpi.rows", *FAST,
             "/no/such/matrix.mtx.gz", matrices[2]], timeout=60)
    check(r.returncode == 2 and "nothing was measured" in r.stderr and
          "matrix.mtx.gz" in r.stderr and "starting" not in r.stderr,
          "a matrix that cannot be read is refused before the ranks start: %s" % r.stderr[-500:])
    r = run([SPBENCH, "run", "--ranks", "1,2", "--kernels", "mpi.rows", *FAST, "--tol", "1e-300",
             matrices[0]], timeout=120)
    check(r.returncode == 1 and "wrong" in r.stdout and "Primary job" not in r.stderr and
          "noticed" not in r.stderr,
          "a study with wrong rows exits 1 without mpirun's banner: %d %s" %
          (r.returncode, r.stderr[-500:]))


def test_gpu_rows_left_out(tmp, matrices):
    """Without --kernels, a machine without a GPU leaves the GPU ranks' rows
    out of a distributed study (the header names them), as it does the
    device rows of a plain run: no skipped rows to read past."""
    out = os.path.join(tmp, "nogpu.csv")
    r = run([SPBENCH, "run", "--ranks", "1,2", *FAST, "--csv", out, matrices[0]], timeout=300)
    rows = read_rows(out) if os.path.exists(out) else []
    if "# GPU: no CUDA device" not in r.stdout:
        skip("a GPU is here: the GPU ranks' rows run")
        return
    check(r.returncode == 0 and rows and not [x for x in rows if x["kernel"].startswith("mpi.cuda")]
          and "left out: 3 kernels (mpi.cuda.staged, mpi.cuda.nccl, mpi.cuda.peer)" in r.stdout,
          "no GPU-rank rows, the header says why: %s %s" % (
              sorted({x["kernel"] for x in rows}), r.stdout[:600]))


def main():
    why = cannot_run()
    if not why and os.environ.get("SPB_REQUIRE_MPI") == "1" and not petsc_built():
        why = "spbench was built without PETSc (scripts/deps.sh installs libpetsc-real-dev)"
    skip_whole_test(why, "SPB_REQUIRE_MPI")
    run_tests([test_every_distribution, test_exchange_counts, test_hybrid, test_shared_memory_copy,
               test_failing_rank, test_killed_rank, test_rank_killed_twice, test_killed_mpirun,
               test_killed_rank0_between_rows, test_stop, test_weak, test_summary_table,
               test_gpu_rows_left_out, test_usage],
              "spb_e2e_mpi_", globals())


main()
