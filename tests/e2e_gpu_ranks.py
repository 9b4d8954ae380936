#!/usr/bin/env python3
"""GPU ranks on two GPUs or more: `run --ranks 1,2` of mpi.cuda.staged and
mpi.cuda.nccl on shapes that stress the ghost block (hub rows, R-MAT, a
pattern matrix, a Laplacian, a matrix of three rows), each rank on its own
GPU. Every row validates; NCCL's row runs (it declines only where ranks
share a GPU); the rows say where their ghost block ran and time their
exchange (the staged row its three legs); the header measures the link
between the GPUs. Reports itself
skipped on a machine with fewer than two GPUs, saying why.
"""
import os
import re
import shutil
import subprocess
import tempfile

from spbtest import SPBENCH, SOURCE, check, finish, read_rows, skip_whole_test

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           NCCL_NVLS_ENABLE=os.environ.get("NCCL_NVLS_ENABLE", "0"))
SHAPES = ["gen:hubs:45000:8:1:17663", "gen:rmat:16:8", "gen:lap3d:40", "gen:random:3:2",
          os.path.join(SOURCE, "matrices", "jagmesh7.mtx.gz")]


def gpus():
    """The GPUs nvidia-smi lists (0 without the tool)."""
    if not shutil.which("nvidia-smi"):
        return 0
    r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    return sum(1 for line in r.stdout.splitlines() if line.startswith("GPU "))


def why_not():
    version = subprocess.run([SPBENCH, "--version"], capture_output=True, text=True).stdout
    if "CUDA compiled in" not in version or "MPI compiled in" not in version:
        return "spbench was built without CUDA or MPI"
    if not shutil.which("mpirun"):
        return "no mpirun"
    count = gpus()
    if count < 2:
        return "this machine has %d GPU%s; GPU ranks on two GPUs need two" % (
            count, "" if count == 1 else "s")
    return None


def check_legs(row):
    """The staged row's message gives its three legs, each timed and none
    longer than the product."""
    legs = re.findall(r"(device to host|MPI|host to device) ([\d.e+-]+) ms \(([\d.e+-]+) GB/s\)",
                      row["message"])
    product = float(row["time_ms_median"])
    check([name for name, _, _ in legs] == ["device to host", "MPI", "host to device"] and
          all(0 < float(ms) <= 1.1 * product for _, ms, _ in legs),
          "%s: the staged row's legs, each within the product's %g ms: %s" %
          (row["matrix"], product, row["message"][:200]))


def main():
    skip_whole_test(why_not(), "SPB_REQUIRE_TWO_GPUS")
    tmp = tempfile.mkdtemp(prefix="spb_e2e_gpu_ranks_")
    try:
        out = os.path.join(tmp, "gpu.csv")
        r = subprocess.run([SPBENCH, "run", "--ranks", "1,2", "--kernels", "mpi.cuda.*",
                            "--reps", "3", "--min-time", "0", "--warmup", "1", "--csv", out,
                            *SHAPES], capture_output=True, text=True, env=ENV, timeout=900)
        check(r.returncode == 0, "the study runs: %s" % r.stderr[-800:])
        check("# GPU link" in r.stdout, "the header measures the link between the GPUs")
        rows = read_rows(out) if os.path.exists(out) else []
        check(len(rows) == 4 * len(SHAPES), "a row per shape, kernel and rank count: %d"
              % len(rows))
        bad = [(x["matrix"], x["kernel"], x["ranks"], x["status"], x["message"][:120])
               for x in rows if x["status"] != "ok"]
        check(not bad, "every row validated ok on its own GPU: %s" % bad[:4])
        for x in rows:
            if x["ranks"] != "2" or x["status"] != "ok":
                continue
            ghosts = float(x["bytes_sent_max"] or 0) > 0
            check(not ghosts or "ghost block" in x["message"],
                  "%s %s: the message names the ghost block's kernel and place: %s" %
                  (x["matrix"], x["kernel"], x["message"][:120]))
            check(not ghosts or float(x["exchange_ms"]) > 0,
                  "%s %s: the exchange is timed" % (x["matrix"], x["kernel"]))
            if x["kernel"] == "mpi.cuda.staged":
                check_legs(x)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


main()
