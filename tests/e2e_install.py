"""End-to-end install test: `cmake --install BUILD --prefix P` puts spbench
in P/bin and its helpers under P/share/spbench; the prefix, moved, still
works, because the binary finds its helpers from its own place. A user's
path from the prefix: fetch matrices by criteria from a mirror of the
SuiteSparse collection (e2e_fetch's, on loopback), run the study on them,
merge its shards, compare two runs, plot, and open the report in a
headless Chromium (where installed); build the example plug-in with the
installed CMake package, twice, and measure, chart, report and compare it
(its SpGEMM kernel too), and the CUDA example where nvcc is. As root, the source and build
trees are hidden meanwhile (a mount namespace lays an empty folder over
each): a helper read from the source tree would fail there. And the
installed program starts without the CUDA runtime (hidden the same way).

usage: e2e_install.py SPBENCH SOURCE_DIR [TEST]
"""
import os
import re
import shutil
import subprocess

from e2e_fetch import fixture_mirror
from spbtest import SOURCE, SPBENCH, check, check_results_json, read_rows, run_tests, skip

QUICK = ("--kernels csr.serial,csr.omp.static --threads 1 --reps 3 --min-time 0 "
         "--bandwidth 10 --energy-s 0 --quiet")
MATRICES = "@study.txt"  # what fetch chose: two matrices

# the study a user runs from the prefix: a run, the same in two shards
# merged, a second run compared with the first, and charts
FLOW = """set -e
S="$1/bin/spbench"
if [ -n "$2" ] && [ -e "$2/CMakeLists.txt" ]; then echo "the source tree is in view"; exit 3; fi
"$S" --version
"$S" fetch --base "$3" --cache cache --group HB --real -o study.txt
"$S" run {q} --csv a.csv --json a.json {m}
"$S" run {q} --shard 1/2 --csv s1.csv {m}
"$S" run {q} --shard 2/2 --csv s2.csv {m}
"$S" merge m.csv s1.csv s2.csv
"$S" run {q} --csv b.csv --json b.json {m}
"$S" compare a.json b.json
"$S" plot a.csv charts
"$S" report a.json -o study.html
# a plug-in built with the installed CMake package, twice (another build of
# the same kernels), measured, charted, reported and compared
for flags in -O2 -O1; do
  cmake -S csr_rows -B "plugin$flags" -DCMAKE_PREFIX_PATH="$1" -DCMAKE_C_FLAGS="$flags" >/dev/null
  cmake --build "plugin$flags" >/dev/null
  "$S" run {q_plugin} --plugin "plugin$flags/libcsr_rows.so" --csv "p$flags.csv" \
      --json "p$flags.json" {m}
done
"$S" compare p-O2.json p-O1.json
# a kernel of one's own, started with new-kernel
"$S" new-kernel fast_rows
cmake -S fast_rows -B fast_rows/build -DCMAKE_PREFIX_PATH="$1" >/dev/null
cmake --build fast_rows/build >/dev/null
"$S" run {q_new} --plugin fast_rows/build/libfast_rows.so --csv new.csv {m}
"$S" plot p-O2.csv plugin-charts
"$S" report p-O2.json -o plugin.html
# the example's SpGEMM kernel beside spbench's
"$S" run --op spgemm {q_gemm} --plugin plugin-O2/libcsr_rows.so --csv gemm.csv {m}
# the CUDA example and one started with new-kernel --cuda, built with the
# installed CMake package where nvcc is ($4); run (on a machine without a
# device their rows are skipped, saying why)
if [ -n "$4" ]; then
  "$S" new-kernel warp_rows --cuda
  for folder in cuda_rows warp_rows; do
    cmake -S $folder -B $folder/build -DCMAKE_PREFIX_PATH="$1" -DCMAKE_CUDA_COMPILER="$4" \
        -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
    cmake --build $folder/build >/dev/null
  done
  "$S" run {q_cuda} --plugin cuda_rows/build/libcuda_rows.so \
      --plugin warp_rows/build/libwarp_rows.so --csv cuda.csv {m}
fi
""".format(q=QUICK, m=MATRICES,
           q_plugin=QUICK.replace("csr.serial,csr.omp.static", "mine.*,csr.serial"),
           q_new=QUICK.replace("csr.serial,csr.omp.static", "fast_rows.*"),
           q_gemm=QUICK.replace("csr.serial,csr.omp.static", "mine.spgemm.serial,spgemm.gustavson"),
           q_cuda=QUICK.replace("csr.serial,csr.omp.static",
                                "mine.csr.cuda.warp,warp_rows.csr.cuda.warp,csr.serial"))


def fixture_installed(tmp):
    """The build installed into tmp/prefix, then moved to tmp/moved."""
    build = os.path.dirname(os.path.abspath(SPBENCH))
    prefix, moved = os.path.join(tmp, "prefix"), os.path.join(tmp, "moved")
    r = subprocess.run(["cmake", "--install", build, "--prefix", prefix], capture_output=True,
                       text=True, timeout=300)
    check(r.returncode == 0, "cmake --install: %s" % r.stderr)
    os.rename(prefix, moved)
    return build, moved


def hidden(paths):
    """A command prefix that runs under an empty folder laid over each path
    (a private mount namespace), or None where this user cannot."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return None
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "true"],
                           capture_output=True)
    if probe.returncode != 0:
        return None
    mounts = " && ".join("mount -t tmpfs none '%s'" % p for p in paths)
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", mounts + ' && exec "$@"',
            "hide"]


def test_without_cuda_runtime(tmp, installed):
    """The installed program needs no CUDA library itself: its CUDA code is
    a module it loads (lib/spbench/spbench-gpu.so). With the CUDA runtime
    hidden (an empty folder laid over its own, as root), spbench starts,
    says why it has no GPU rows, and measures the CPU rows; a GPU pattern
    that matches nothing says why too."""
    moved = installed[1]
    binary = os.path.join(moved, "bin", "spbench")
    if not shutil.which("readelf"):
        skip("no readelf: the installed binary's libraries read", "readelf")
        return
    dynamic = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True).stdout
    needed = re.findall(r"\(NEEDED\).*\[(.+)\]", dynamic)
    cuda = [lib for lib in needed if re.match(r"lib(cudart|cusparse|nccl|cublas)", lib)]
    check(needed and not cuda, "the installed binary needs no CUDA library: %s" % needed)
    modules = [os.path.join(d, f) for d, _, files in os.walk(moved) for f in files
               if f == "spbench-gpu.so"]
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout
    if "CUDA not built" in version:
        check(not modules, "a build without CUDA installs no GPU module: %s" % modules)
        return
    check(len(modules) == 1 and "CUDA compiled in" in version,
          "one GPU module installed, and loaded where CUDA is: %s %s" % (modules, version))
    libs = subprocess.run(["ldd", modules[0]], capture_output=True, text=True).stdout
    runtime = re.search(r"libcudart\.so\S* => (\S+)", libs)
    folders = {os.path.dirname(runtime.group(1)), os.path.dirname(os.path.realpath(
        runtime.group(1)))} if runtime else set()
    system = [f for f in folders if f in ("/lib", "/usr/lib", "/lib64", "/usr/lib64") or
              f.startswith(("/usr/lib/", "/lib/"))]
    if not folders or system:  # hiding a system folder would hide the program's own libraries
        skip("the CUDA runtime in a system folder (%s): the run without it" % sorted(folders),
             "cuda-folder")
        return
    hide = hidden(sorted(folders))
    if not hide:
        skip("not root (or no unshare): the run with the CUDA runtime hidden", "root")
        return
    cage4 = os.path.join(SOURCE, "matrices", "cage4.mtx.gz")
    script = ('"$1" --version && "$1" --list | tail -1 && '
              '"$1" run --kernels csr.serial --reps 2 --min-time 0 --energy-s 0 --quiet '
              '--bandwidth 10 "$2"; echo "rc $?"; "$1" run --kernels auto.cuda "$2"; '
              'echo "rc $?"')
    r = subprocess.run(hide + ["sh", "-c", script, "sh", binary, cage4], capture_output=True,
                       text=True, timeout=300)
    out = r.stdout + r.stderr
    check("CUDA not loaded" in out and "# no GPU kernels: the GPU module did not load" in out
          and "libcudart" in out and "rc 0" in out and "rc 2" in out and
          "no GPU kernels here" in out,
          "without the CUDA runtime: starts, says why there are no GPU rows, measures the "
          "CPU rows (rc 0), and a GPU pattern says why it matches nothing (rc 2): %s" % out[-1500:])


def test_deb(tmp):
    """`cpack -G DEB`: the package holds the program (and, built with
    CUDA, its GPU module beside the prefix's lib/spbench), depends on no
    CUDA library (NVIDIA's are not Debian packages) and suggests the CUDA
    runtime and cuSPARSE packages the module needs."""
    build = os.path.dirname(os.path.abspath(SPBENCH))
    if not shutil.which("cpack") or not shutil.which("dpkg-deb"):
        skip("no cpack or dpkg-deb: the Debian package", "dpkg-deb")
        return
    out = os.path.join(tmp, "deb")
    r = subprocess.run(["cpack", "-G", "DEB", "-B", out, "--config",
                        os.path.join(build, "CPackConfig.cmake")],
                       capture_output=True, text=True, timeout=600)
    debs = [os.path.join(out, f) for f in os.listdir(out) if f.endswith(".deb")] \
        if os.path.isdir(out) else []
    check(r.returncode == 0 and len(debs) == 1, "cpack makes one package: %s" % r.stderr[-500:])
    if len(debs) != 1:
        return
    info = subprocess.run(["dpkg-deb", "-I", debs[0]], capture_output=True, text=True).stdout
    files = subprocess.run(["dpkg-deb", "-c", debs[0]], capture_output=True, text=True).stdout
    depends = re.search(r"^ Depends: (.*)$", info, re.M)
    suggests = re.search(r"^ Suggests: (.*)$", info, re.M)
    check(depends and "python3" in depends.group(1) and "cuda" not in depends.group(1),
          "it depends on what the program needs, no CUDA package: %s" % info)
    check("./usr/bin/spbench" in files, "the program is in it: %s" % files[-500:])
    version = subprocess.run([SPBENCH, "--version"], capture_output=True, text=True).stdout
    if "CUDA compiled in" in version:
        check("/usr/lib/spbench/spbench-gpu.so" in files and suggests and
              "cuda-cudart-" in suggests.group(1) and "libcusparse-" in suggests.group(1),
              "the GPU module is in it, and the CUDA packages are suggested: %s" % info)


def test_prefix(tmp, installed):
    build, moved = installed
    share = os.path.join(moved, "share", "spbench")
    package = ["python/spbench/%s.py" % m for m in
               ("__init__", "compare", "merge", "fetch", "report", "stats", "plots/__init__",
                "plots/plot", "plots/drawing", "plots/rank_charts", "plots/compare_chart")]
    for helper in package + ["slurm/submit.sh"]:
        check(os.path.isfile(os.path.join(share, helper)), "installed: share/spbench/%s" % helper)
    docs = os.path.join(moved, "share", "doc", "spbench")
    readme = os.path.join(docs, "README.md")
    links = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", open(readme).read()) \
        if os.path.isfile(readme) else []
    missing = [link for link in links if not os.path.exists(os.path.join(docs, link))]
    check(links and not missing, "the installed README's %d links reach installed pages: missing "
          "%s" % (len(links), missing[:5]))
    binary = os.path.join(moved, "bin", "spbench")
    r = subprocess.run([binary, "--version"], capture_output=True, text=True)
    check(r.returncode == 0 and "helpers: %s/bin/../share/spbench/python/spbench" % moved in r.stdout,
          "the moved prefix's binary names its own helpers: %s" % r.stdout)
    # the program's own data names no build path (debug information may)
    if shutil.which("readelf"):
        rodata = subprocess.run(["readelf", "-p", ".rodata", binary], capture_output=True,
                                text=True, errors="replace").stdout
        # each string whole: a sanitizer build keeps its source files' names
        # for its reports, but no string is the tree itself
        strings = {line.split("]", 1)[1].strip() for line in rodata.splitlines()
                   if line.strip().startswith("[") and "]" in line}
        check(strings and os.path.abspath(SOURCE) not in strings,
              "the installed binary's read-only data holds no source tree path")
    else:
        skip("no readelf: the installed binary's data read for a build path", "readelf")

    work = os.path.join(tmp, "study")
    os.mkdir(work)
    # the example as a user copies it, before the source tree is hidden
    for example in ("csr_rows", "cuda_rows"):
        shutil.copytree(os.path.join(SOURCE, "examples", "plugins", example),
                        os.path.join(work, example))
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                    if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else "")
    if not nvcc:
        skip("no nvcc: the CUDA example built against the prefix", "nvcc")
    with open(os.path.join(work, "flow.sh"), "w") as f:
        f.write(FLOW)
    trees = [SOURCE] + ([] if os.path.abspath(build).startswith(os.path.abspath(SOURCE) + "/")
                        else [build])
    hide = hidden([os.path.abspath(t) for t in trees])
    base = fixture_mirror(tmp)[0]
    command = (hide or []) + ["bash", "flow.sh", moved, SOURCE if hide else "", base, nvcc]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPB_")}
    r = subprocess.run(command, cwd=work, capture_output=True, text=True, env=env, timeout=600)
    where = "with the source and build trees hidden" if hide else "(not root: trees left in view)"
    if not hide:
        skip("not root (or no unshare): the prefix run with the source and build trees hidden",
             "root")
    check(r.returncode == 0, "run, merge, compare and plot from the prefix %s: %s%s"
          % (where, r.stdout[-2000:], r.stderr[-2000:]))
    if r.returncode != 0:
        return
    check("study.txt: 2 matrices" in r.stdout, "fetch chose and fetched: %s" % r.stdout)
    check("m.csv: 4 rows from 2 shards" in r.stdout, "merge joined the shards: %s" % r.stdout)
    check("4 pairs" in r.stdout or "over 4 rows" in r.stdout, "compare paired the two runs")
    check(os.path.getsize(os.path.join(work, "charts", "gflops.svg")) > 0, "plot drew gflops")
    plugin_rows = read_rows(os.path.join(work, "p-O2.csv"))
    mine = [x for x in plugin_rows if x["kernel"].startswith("mine.")]
    check(len(mine) == 4 and all(x["status"] == "ok" for x in mine),
          "the plug-in built against the prefix ran and validated: %s"
          % [(x["matrix"], x["kernel"], x["status"]) for x in mine])
    check_results_json(os.path.join(work, "p-O2.json"))
    started = read_rows(os.path.join(work, "new.csv"))
    check(len(started) == 4 and all(x["status"] == "ok" and x["kernel"].startswith("fast_rows.")
                                    for x in started),
          "new-kernel's folder builds against the prefix and its kernels validate: %s"
          % [(x["kernel"], x["status"]) for x in started])
    check("6 pairs" in r.stdout or "over 6 rows" in r.stdout,
          "compare paired the two builds' rows: %s" % r.stdout[-1500:])
    gemm = read_rows(os.path.join(work, "gemm.csv"))
    check(len(gemm) == 4 and all(x["status"] == "ok" for x in gemm),
          "the example's SpGEMM kernel validates beside spgemm.gustavson: %s"
          % [(x["matrix"], x["kernel"], x["status"]) for x in gemm])
    if nvcc:
        device = [x for x in read_rows(os.path.join(work, "cuda.csv"))
                  if x["kernel"].endswith(".csr.cuda.warp")]
        check(len(device) == 4 and all(x["status"] == "ok" or (
            x["status"] == "skipped" and "CUDA" in x["message"]) for x in device),
              "the CUDA examples built against the prefix: ok, or skipped for want of a "
              "device: %s" % [(x["kernel"], x["status"], x["message"]) for x in device])
    check("mine.csr.omp" in open(os.path.join(work, "plugin-charts", "gflops.svg")).read(),
          "the chart draws the plug-in's rows")
    check("mine.csr.serial" in open(os.path.join(work, "plugin.html")).read(),
          "the report shows the plug-in's rows")
    page = os.path.join(work, "study.html")
    check("study.html: 4 rows" in r.stdout and os.path.getsize(page) > 0, "report wrote the page")
    browser = shutil.which("chromium")
    if browser:  # the page opened as a user would, from the file
        shown = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                                "--dump-dom", "file://" + page], capture_output=True, text=True,
                               timeout=120)
        check(shown.returncode == 0 and 'id="matrices"' in shown.stdout,
              "the report opens in a browser: %s" % shown.stderr[-300:])
    else:
        skip("no Chromium: the installed report opened in a browser", "chromium")


if __name__ == "__main__":
    run_tests([test_prefix, test_without_cuda_runtime, test_deb], "spb_e2e_install_",
              globals())
