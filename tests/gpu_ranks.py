"""What the GPU-rank tests share (e2e_gpu_ranks1: one GPU; e2e_gpu_ranks: two;
e2e_gpu_ranks4: four): the GPUs this machine has, why a study cannot run here, the shapes
that stress the ghost block, and the checks every row gets."""
import os
import random
import re
import shutil
import subprocess

from spbtest import SPBENCH, SOURCE, check

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           NCCL_NVLS_ENABLE=os.environ.get("NCCL_NVLS_ENABLE", "0"))
SHAPES = ["gen:hubs:45000:8:1:17663", "gen:rmat:16:8", "gen:lap3d:40", "gen:random:3:2",
          os.path.join(SOURCE, "matrices", "jagmesh7.mtx.gz")]


def diagonal(folder, n=20000):
    """A diagonal matrix: each rank's rows need only its own x."""
    path = os.path.join(folder, "diagonal.mtx")
    rng = random.Random(7)
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n" % (n, n, n))
        for i in range(1, n + 1):
            f.write("%d %d %.6f\n" % (i, i, rng.uniform(0.1, 1.0) * rng.choice((-1, 1))))
    return path


def gpus():
    """The GPUs nvidia-smi lists (0 without the tool)."""
    if not shutil.which("nvidia-smi"):
        return 0
    r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    return sum(1 for line in r.stdout.splitlines() if line.startswith("GPU "))


def why_not(need):
    """Why a study of GPU ranks on `need` GPUs cannot run here; None when it can."""
    version = subprocess.run([SPBENCH, "--version"], capture_output=True, text=True).stdout
    if "CUDA compiled in" not in version or "MPI compiled in" not in version:
        return "spbench was built without CUDA or MPI"
    if not shutil.which("mpirun"):
        return "no mpirun"
    count = gpus()
    if count < need:
        return "this machine has %d GPU%s; GPU ranks on %d GPU%s need %d" % (
            count, "" if count == 1 else "s", need, "" if need == 1 else "s", need)
    return None


LEGS = {"mpi.cuda.staged": ["device to host", "MPI", "host to device"],
        "mpi.cuda.peer": ["packing", "MPI's notes", "copies"]}


def check_legs(row):
    """The staged and peer rows' messages give their three legs, each timed
    and none longer than the product; a leg that moves the ghosts gives its
    GB/s (the peer row's notes carry none)."""
    legs = re.findall(r"(device to host|MPI's notes|MPI|host to device|packing|copies) "
                      r"([\d.e+-]+) ms( \([\d.e+-]+ GB/s\))?", row["message"])
    names = LEGS[row["kernel"]]
    product = float(row["time_ms_median"])
    check([name for name, _, _ in legs] == names and
          all(0 < float(ms) <= 1.1 * product for _, ms, _ in legs) and
          all(bool(rate) == (name != "MPI's notes") for name, _, rate in legs),
          "%s %s: the legs, each within the product's %g ms: %s" %
          (row["matrix"], row["kernel"], product, row["message"][:200]))


def check_ranked_row(x):
    """A row at two ranks or more, with ghosts: the message names the ghost
    block's kernel and place, the exchange is timed, and the staged and peer
    rows give their legs."""
    ghosts = float(x["bytes_sent_max"] or 0) > 0
    check(not ghosts or "ghost block" in x["message"],
          "%s %s at %s ranks: the message names the ghost block's kernel and place: %s" %
          (x["matrix"], x["kernel"], x["ranks"], x["message"][:120]))
    check(not ghosts or float(x["exchange_ms"]) > 0,
          "%s %s at %s ranks: the exchange is timed" % (x["matrix"], x["kernel"], x["ranks"]))
    if ghosts and x["kernel"] in LEGS:
        check_legs(x)
