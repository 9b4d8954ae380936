"""The documents point at what is there: every relative link of every
Markdown file of the tree reaches a file (and, into a page of the tree, a
heading of it), every data file the documents name is in docs/results,
loose or in an archive its README lists, docs/results stays a notebook
of the claims' evidence (at most 60 files), and the scripts that make the
pages' GPU tables say when they have nothing to table or a file is not a
study's, and print their usage on --help; the device A/Bs' table pairs
each candidate row with its kernel; the device-code check tells a change
that leaves the device code alone from one that does not.

usage: e2e_docs.py SPBENCH SOURCE_DIR
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

from spbtest import SOURCE, check, run_tests, skip

RESULTS = os.path.join(SOURCE, "docs", "results")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# a data file as the documents name one: a dated name with a data suffix
DATA_NAME = re.compile(r"`(?:docs/results/)?([A-Za-z0-9_.-]*20\d\d-\d\d-\d\d[A-Za-z0-9_.-]*"
                       r"\.(?:csv|json|txt|tgz|tar)(?:\.gz)?)`")


def markdown_files():
    """The tree's Markdown files, build folders and hidden ones left out."""
    out = []
    for f in glob.glob(os.path.join(SOURCE, "**", "*.md"), recursive=True):
        first = os.path.relpath(f, SOURCE).split(os.sep)[0]
        if not first.startswith(("build", ".")) and first != "results":
            out.append(f)
    return out


def anchor(heading):
    """A heading's anchor as GitHub writes it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path):
    with open(path) as f:
        return {anchor(line.lstrip("#")) for line in f if line.startswith("#")}


def test_links_resolve():
    """Every relative link reaches a file, and a #heading of a Markdown page."""
    broken = []
    for doc in markdown_files():
        text = open(doc).read()
        text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path, _, part = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(doc), path))
            if not os.path.exists(full):
                broken.append("%s -> %s" % (os.path.relpath(doc, SOURCE), target))
            elif part and full.endswith(".md") and part not in anchors(full):
                broken.append("%s -> %s (no such heading)" % (os.path.relpath(doc, SOURCE),
                                                                target))
    check(not broken, "every relative link resolves: %s" % broken[:8])


def test_data_files_named_are_there():
    """A data file a document names is in docs/results, loose or inside an
    archive, and each archive is listed in docs/results/README.md."""
    stored = set(os.listdir(RESULTS))
    readme = open(os.path.join(RESULTS, "README.md")).read()
    unlisted = []
    for archive in glob.glob(os.path.join(RESULTS, "*.data.tar.xz")):
        with tarfile.open(archive) as t:
            names = [m.name for m in t.getmembers() if m.isfile()]
        stored.update(names)
        stored.update(n + ".gz" for n in names)  # stored uncompressed
        stored.update(n.split("/")[0] + ".tgz" for n in names if "/" in n)  # a folder's files
        base = os.path.basename(archive)
        if "[`%s`]" % base not in readme or any("`%s`" % n not in readme for n in names):
            unlisted.append(base)
    missing = []
    for doc in markdown_files():
        for name in DATA_NAME.findall(open(doc).read()):
            if name not in stored and "*" not in name and ".." not in name:  # not a pattern
                missing.append("%s: %s" % (os.path.relpath(doc, SOURCE), name))
    check(not missing, "every data file the documents name is in docs/results: %s"
          % sorted(set(missing))[:8])
    check(not unlisted, "docs/results/README.md lists each archive and its files: %s"
          % unlisted)


def test_results_stay_a_notebook():
    """docs/results holds the claims' evidence, not a lab's every run."""
    files = [f for f in glob.glob(os.path.join(RESULTS, "**"), recursive=True)
             if os.path.isfile(f)]
    check(len(files) <= 60, "docs/results holds %d files (at most 60)" % len(files))
    size = sum(os.path.getsize(f) for f in files)
    check(size <= 3000000, "docs/results holds %d bytes (at most 3 MB)" % size)


def test_ncu_table_of_no_profiles():
    """scripts/dev/gpu_ncu_limits.py, which makes the pages' Nsight Compute
    tables, says so when an archive holds no profile (its shell script given
    no pairs): a message and exit 1, not a traceback."""
    with tempfile.TemporaryDirectory() as work:
        os.mkdir(os.path.join(work, "ncu"))
        archive = os.path.join(work, "ncu.tgz")
        with tarfile.open(archive, "w:gz") as t:
            t.add(os.path.join(work, "ncu"), arcname="ncu")
        p = subprocess.run([sys.executable, os.path.join(SOURCE, "scripts", "dev",
                                                         "gpu_ncu_limits.py"), archive],
                           capture_output=True, text=True, timeout=60)
    check(p.returncode == 1 and "no row was profiled" in p.stderr
          and "Traceback" not in p.stderr,
          "an archive of no profiles is said: rc %d, %r" % (p.returncode, p.stderr[-300:]))


def test_frontier_table_usage():
    """scripts/dev/gpu_frontier.py, which makes the GPU studies' tables:
    --help prints its usage (exit 0) and a file that is not a study's JSON
    is said (exit 1), neither a traceback."""
    script = os.path.join(SOURCE, "scripts", "dev", "gpu_frontier.py")
    p = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True,
                       timeout=60)
    check(p.returncode == 0 and "usage:" in p.stdout and "Traceback" not in p.stderr,
          "--help prints the usage: rc %d, %r" % (p.returncode, p.stderr[-300:]))
    with tempfile.TemporaryDirectory() as work:
        for name, text in (("missing.json", None), ("broken.json", "{\"rows\": [")):
            path = os.path.join(work, name)
            if text is not None:
                with open(path, "w") as f:
                    f.write(text)
            p = subprocess.run([sys.executable, script, path], capture_output=True, text=True,
                               timeout=60)
            check(p.returncode == 1 and "cannot read" in p.stderr
                  and "Traceback" not in p.stderr,
                  "%s is said: rc %d, %r" % (name, p.returncode, p.stderr[-300:]))


def test_profile_pairs_by_precision():
    """gpu_frontier.py --pairs names each matrix's best spbench row and
    fastest vendor row in each precision, for gpu_ncu_limits.sh, whose
    table (gpu_ncu_limits.py) gives each row's precision (fp64 for an
    index of before precisions were listed)."""
    def row(kernel, precision, ms):
        return {"matrix": "gen:hubs:9", "precision": precision, "kernel": kernel,
                "backend": "cuda", "status": "ok", "time_ms_median": ms}
    doc = {"roles": {"baseline": "csr.serial", "libraries": ["cusparse.csr", "cusparse.coo"]},
           "rows": [row("csr.cuda.stream", "fp64", 0.2), row("csr.cuda.merge", "fp64", 0.1),
                    row("cusparse.csr", "fp64", 0.15), row("csr.cuda.stream", "fp32", 0.1),
                    row("cusparse.csr", "fp32", 0.12), row("cusparse.coo", "fp32", 0.11)]}
    dev = os.path.join(SOURCE, "scripts", "dev")
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "study.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        p = subprocess.run([sys.executable, os.path.join(dev, "gpu_frontier.py"), path, "--pairs"],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 0 and sorted(p.stdout.splitlines()) == [
            "gen:hubs:9 csr.cuda.merge,cusparse.csr fp64",
            "gen:hubs:9 csr.cuda.stream,cusparse.coo fp32"],
            "the pairs by precision: rc %d, %r" % (p.returncode, p.stdout[-300:]))
        os.mkdir(os.path.join(work, "ncu"))
        with open(os.path.join(work, "ncu", "index.tsv"), "w") as f:
            f.write("1\tgen:hubs:9\tcsr.cuda.stream\tfp32\n2\tgen:hubs:9\tcusparse.csr\n")
        archive = os.path.join(work, "ncu.tgz")
        with tarfile.open(archive, "w:gz") as t:
            t.add(os.path.join(work, "ncu"), arcname="ncu")
        p = subprocess.run([sys.executable, os.path.join(dev, "gpu_ncu_limits.py"), archive],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 0 and
              "| hubs:9 | fp32 | csr.cuda.stream | (no launch profiled) |" in p.stdout and
              "| hubs:9 | fp64 | cusparse.csr | (no launch profiled) |" in p.stdout,
              "the profiles' table by precision: rc %d, %r %r" % (
                  p.returncode, p.stdout[-400:], p.stderr[-300:]))


def test_ab_table():
    """scripts/dev/gpu_ab_table.py, the device A/Bs' table: a candidate row
    against the kernel whose name it extends (2.00x where it takes half the
    time), the best spbench row against the fastest vendor row, and a wrong
    row listed with exit 1."""
    def row(kernel, ms, status="ok"):
        return {"matrix": "gen:hubs:9", "precision": "fp64", "kernel": kernel, "backend": "cuda",
                "status": status, "time_ms_median": ms, "spread": 0.01, "message": "m"}
    doc = {"roles": {"baseline": "csr.serial", "libraries": ["cusparse.csr"]},
           "rows": [row("csr.cuda.stream", 0.2), row("csr.cuda.stream.lr", 0.1),
                    row("cusparse.csr", 0.15)]}
    script = os.path.join(SOURCE, "scripts", "dev", "gpu_ab_table.py")
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "ab.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        p = subprocess.run([sys.executable, script, path], capture_output=True, text=True,
                           timeout=60)
        check(p.returncode == 0 and "| `csr.cuda.stream.lr` | 100.0 | `csr.cuda.stream` | 200.0 "
              "| 2.000x |" in p.stdout and "csr.cuda.stream.lr | cusparse.csr | 1.500x" in p.stdout,
              "the A/B table: rc %d, %r %r" % (p.returncode, p.stdout[-600:], p.stderr[-300:]))
        doc["rows"].append(row("csr.cuda.adaptive.lr", 0.3, "wrong"))
        with open(path, "w") as f:
            json.dump(doc, f)
        p = subprocess.run([sys.executable, script, path], capture_output=True, text=True,
                           timeout=60)
        check(p.returncode == 1 and "**wrong**: `csr.cuda.adaptive.lr`" in p.stdout,
              "a wrong row is listed: rc %d, %r" % (p.returncode, p.stdout[-300:]))
    p = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True,
                       timeout=60)
    check(p.returncode == 0 and "usage:" in p.stdout, "--help: rc %d" % p.returncode)


def test_same_device_code():
    """scripts/dev/same_device_code.py on a repository and build of its own
    (one kernel file): a comment added leaves the device code the same
    (exit 0), a changed constant does not (exit 1, the file named)."""
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                    if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else None)
    if nvcc is None:
        skip("no nvcc: the device-code check", "nvcc")
        return
    script = os.path.abspath(os.path.join(SOURCE, "scripts", "dev", "same_device_code.py"))
    body = "__global__ void scaled(float *y) { y[threadIdx.x] *= %s; }\n"
    with tempfile.TemporaryDirectory() as work:
        repo, build = os.path.join(work, "repo"), os.path.join(work, "build")
        os.mkdir(repo)
        os.mkdir(build)
        kernel = os.path.join(repo, "k.cu")
        with open(kernel, "w") as f:
            f.write(body % "2.0f")
        git = ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"]
        for args in (["init", "-q"], ["add", "k.cu"], ["commit", "-qm", "k"]):
            subprocess.run(git + args, check=True, capture_output=True)
        with open(os.path.join(build, "compile_commands.json"), "w") as f:
            json.dump([{"directory": build, "file": kernel,
                        "command": "%s -arch=sm_90 -O2 -c %s -o k.o" % (nvcc, kernel)}], f)
        for change, code, said in (("/* a comment */\n" + body % "2.0f", 0, "same     k.cu"),
                                   (body % "3.0f", 1, "DIFFERS  k.cu")):
            with open(kernel, "w") as f:
                f.write(change)
            p = subprocess.run([sys.executable, script, "HEAD", build], cwd=repo,
                               capture_output=True, text=True, timeout=300)
            check(p.returncode == code and said in p.stdout,
                  "%r: rc %d, %r %r" % (said, p.returncode, p.stdout[-300:], p.stderr[-300:]))


def main():
    run_tests([test_links_resolve, test_data_files_named_are_there,
               test_results_stay_a_notebook, test_ncu_table_of_no_profiles,
               test_frontier_table_usage, test_profile_pairs_by_precision, test_ab_table,
               test_same_device_code], "spb_docs_",
              globals())


main()
