#!/usr/bin/env python3
"""GPU ranks on four GPUs: `run --ranks 1,2,3,4` of mpi.cuda.staged,
mpi.cuda.nccl and mpi.cuda.peer on the shapes of e2e_gpu_ranks and a
diagonal matrix (no rank needs a ghost), each rank on its own GPU; then
four ranks sharing two GPUs, where the staged and peer rows time-slice them
(the peer row copying between ranks of one GPU too) and NCCL's row
declines, saying why. Every measured row validates. Reports itself skipped on a
machine with fewer than four GPUs, saying why.
"""
import os
import shutil
import subprocess
import tempfile

from gpu_ranks import ENV, SHAPES, check_ranked_row, diagonal, why_not
from spbtest import SPBENCH, check, finish, read_rows, skip_whole_test

COMMON = ["--kernels", "mpi.cuda.*", "--reps", "3", "--min-time", "0", "--warmup", "1"]


def study(args, out, env):
    r = subprocess.run([SPBENCH, "run", *args, "--csv", out], capture_output=True, text=True,
                       env=env, timeout=1200)
    check(r.returncode == 0, "run %s: %s" % (" ".join(args[:2]), r.stderr[-800:]))
    return read_rows(out) if os.path.exists(out) else []


def main():
    skip_whole_test(why_not(4), "SPB_REQUIRE_FOUR_GPUS")
    tmp = tempfile.mkdtemp(prefix="spb_e2e_gpu_ranks4_")
    try:
        shapes = SHAPES + [diagonal(tmp)]
        rows = study(["--ranks", "1,2,3,4", *COMMON, *shapes], os.path.join(tmp, "own.csv"), ENV)
        check(len(rows) == 3 * 4 * len(shapes),
              "a row per shape, kernel and rank count (1-4): %d" % len(rows))
        bad = [(x["matrix"], x["kernel"], x["ranks"], x["status"], x["message"][:120])
               for x in rows if x["status"] != "ok"]
        check(not bad, "every row validated ok, each rank on its own GPU: %s" % bad[:4])
        for x in rows:
            if x["ranks"] != "1" and x["status"] == "ok":
                check_ranked_row(x)
        alone = [x for x in rows if x["matrix"] == "diagonal" and x["ranks"] != "1"]
        check(alone and all(float(x["bytes_sent_max"] or 0) == 0 for x in alone),
              "the diagonal matrix: no rank sends a ghost: %s" %
              [(x["kernel"], x["ranks"], x["bytes_sent_max"]) for x in alone])

        shared_env = dict(ENV, CUDA_VISIBLE_DEVICES="0,1")
        rows = study(["--ranks", "4", *COMMON, SHAPES[0], SHAPES[1]],
                     os.path.join(tmp, "shared.csv"), shared_env)
        shared = [x for x in rows if x["kernel"] in ("mpi.cuda.staged", "mpi.cuda.peer")]
        nccl = [x for x in rows if x["kernel"] == "mpi.cuda.nccl"]
        check(len(shared) == 4 and all(x["status"] == "ok" for x in shared),
              "four ranks on two GPUs: the staged and peer rows validate: %s" %
              [(x["matrix"], x["kernel"], x["status"], x["message"][:100]) for x in shared])
        check(len(nccl) == 2 and all(x["status"] == "skipped" and "share" in x["message"]
                                     for x in nccl),
              "four ranks on two GPUs: NCCL's rows are skipped, saying the ranks share GPUs: %s" %
              [(x["status"], x["message"][:100]) for x in nccl])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


main()
