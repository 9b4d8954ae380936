#!/usr/bin/env python3
"""GPU ranks on one GPU: `run --ranks 1,2,3,4` of mpi.cuda.staged,
mpi.cuda.nccl and mpi.cuda.peer on the shapes of e2e_gpu_ranks and a
diagonal matrix, every rank on the machine's first GPU (the staged and peer
rows time-slice it; NCCL's row declines past one rank, saying why). Every
measured row validates. Where no rank needs a ghost (one rank, the diagonal
matrix) no row sends a byte, times an exchange or gives legs; with ghosts
the rows name their ghost block's kernel and place, time their exchange and
give their legs. Reports itself skipped on a machine without a GPU.
"""
import os
import shutil
import subprocess
import tempfile

from gpu_ranks import ENV, SHAPES, check_ranked_row, diagonal, why_not
from spbtest import SPBENCH, check, finish, read_rows, skip_whole_test


def main():
    skip_whole_test(why_not(1), "SPB_REQUIRE_ONE_GPU")
    tmp = tempfile.mkdtemp(prefix="spb_e2e_gpu_ranks1_")
    try:
        shapes = SHAPES + [diagonal(tmp)]
        out = os.path.join(tmp, "one.csv")
        r = subprocess.run([SPBENCH, "run", "--ranks", "1,2,3,4", "--kernels", "mpi.cuda.*",
                            "--reps", "3", "--min-time", "0", "--warmup", "1", "--csv", out,
                            *shapes], capture_output=True, text=True,
                           env=dict(ENV, CUDA_VISIBLE_DEVICES="0"), timeout=1200)
        check(r.returncode == 0, "the study runs: %s" % r.stderr[-800:])
        rows = read_rows(out) if os.path.exists(out) else []
        check(len(rows) == 3 * 4 * len(shapes),
              "a row per shape, kernel and rank count (1-4): %d" % len(rows))
        nccl = [x for x in rows if x["kernel"] == "mpi.cuda.nccl" and x["ranks"] != "1"]
        check(nccl and all(x["status"] == "skipped" and "share" in x["message"] for x in nccl),
              "NCCL's rows past one rank are skipped, saying the ranks share a GPU: %s" %
              [(x["status"], x["message"][:100]) for x in nccl[:3]])
        bad = [(x["matrix"], x["kernel"], x["ranks"], x["status"], x["message"][:120])
               for x in rows if x not in nccl and x["status"] != "ok"]
        check(not bad, "every other row validated ok: %s" % bad[:4])
        for x in rows:
            if x["status"] != "ok":
                continue
            if x["ranks"] == "1" or x["matrix"] == "diagonal":
                check(float(x["bytes_sent_max"] or 0) == 0 and float(x["exchange_ms"] or 0) == 0
                      and "legs" not in x["message"],
                      "%s %s at %s ranks: no ghost moves, so no exchange is timed and no "
                      "legs are given: %s bytes, %s ms, %s" %
                      (x["matrix"], x["kernel"], x["ranks"], x["bytes_sent_max"],
                       x["exchange_ms"], x["message"][:120]))
            else:
                check_ranked_row(x)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish()


main()
