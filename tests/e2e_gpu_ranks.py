#!/usr/bin/env python3
"""GPU ranks on two GPUs or more: `run --ranks 1,2` of mpi.cuda.staged,
mpi.cuda.nccl and mpi.cuda.peer on shapes that stress the ghost block (hub rows, R-MAT, a
pattern matrix, a Laplacian, a matrix of three rows), each rank on its own
GPU. Every row validates; NCCL's and the peer row run (NCCL's declines
only where ranks share a GPU, the peer row where CUDA IPC cannot reach a
neighbour's GPU); the rows say where their ghost block ran and time their
exchange (the staged row its three legs); the header measures the link
between the GPUs. Reports itself
skipped on a machine with fewer than two GPUs, saying why.
"""
import os
import shutil
import subprocess
import tempfile

from gpu_ranks import ENV, SHAPES, check_ranked_row, why_not
from spbtest import SPBENCH, check, finish, read_rows, skip_whole_test


def main():
    skip_whole_test(why_not(2), "SPB_REQUIRE_TWO_GPUS")
    tmp = tempfile.mkdtemp(prefix="spb_e2e_gpu_ranks_")
    try:
        out = os.path.join(tmp, "gpu.csv")
        r = subprocess.run([SPBENCH, "run", "--ranks", "1,2", "--kernels", "mpi.cuda.*",
                            "--reps", "3", "--min-time", "0", "--warmup", "1", "--csv", out,
                            *SHAPES], capture_output=True, text=True, env=ENV, timeout=900)
        check(r.returncode == 0, "the study runs: %s" % r.stderr[-800:])
        check("# GPU link" in r.stdout, "the header measures the link between the GPUs")
        rows = read_rows(out) if os.path.exists(out) else []
        check(len(rows) == 6 * len(SHAPES), "a row per shape, kernel and rank count: %d"
              % len(rows))
        bad = [(x["matrix"], x["kernel"], x["ranks"], x["status"], x["message"][:120])
               for x in rows if x["status"] != "ok"]
        check(not bad, "every row validated ok on its own GPU: %s" % bad[:4])
        for x in rows:
            if x["ranks"] == "2" and x["status"] == "ok":
                check_ranked_row(x)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


main()
