"""Shared helpers of the end-to-end tests: the checks and their tally,
running the spbench binary named on the command line (every results JSON
it writes checked against docs/results.schema.json), and running a file's
tests, all or one.

Each e2e_*.py is run as: e2e_NAME.py SPBENCH SOURCE_DIR [TEST]; with TEST
(one of its test_* functions) it runs that one alone, which is how CTest
runs them (tests/CMakeLists.txt: one CTest test per function, so -j spreads
them and a time-out names the function).
"""
import csv
import gzip
import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile

SPBENCH, SOURCE = sys.argv[1], sys.argv[2]
# the tree's results package, importable as spbench commands run it (they
# put its folder on PYTHONPATH)
sys.path.insert(0, os.path.join(SOURCE, "python"))
_tally = {"passed": 0, "failed": 0}
_skipped = []
SKIP_CODE = 77  # CTest's SKIP_RETURN_CODE


def check(cond, what):
    """Records one check; a failure prints what was expected."""
    if cond:
        _tally["passed"] += 1
    else:
        _tally["failed"] += 1
        print("FAILED:", what, file=sys.stderr)


def spbench(*args, **kw):
    """Runs spbench; a results JSON it wrote (run's or merge's --json) is
    checked against the schema."""
    kw.setdefault("timeout", 900)
    out = written_json(args)
    before = stamp(out)
    r = subprocess.run([SPBENCH, *args], capture_output=True, text=True, **kw)
    if out and stamp(out) not in (None, before):
        check_results_json(out)
    return r


def written_json(args):
    if args and args[0] in ("run", "merge") and "--json" in args[:-1]:
        return args[list(args).index("--json") + 1]
    return None


def stamp(path):
    try:
        st = os.stat(path)
        return (st.st_mtime_ns, st.st_size, st.st_ino)
    except (OSError, TypeError):
        return None


_schema = []


def results_validator():
    """docs/results.schema.json's validator, or None where the jsonschema
    module is missing (python3-jsonschema; said once, as a skipped part)."""
    if not _schema:
        try:
            import jsonschema
            with open(os.path.join(SOURCE, "docs", "results.schema.json")) as f:
                _schema.append(jsonschema.Draft202012Validator(json.load(f)))
        except ImportError:
            skip("the results JSON schema check: no jsonschema module (python3-jsonschema)",
                 "jsonschema")
            _schema.append(None)
    return _schema[0]


def check_results_json(path):
    """A results file against docs/results.schema.json: its first errors."""
    validator = results_validator()
    if validator is None:
        return
    try:
        with open(path) as f:
            document = json.load(f)
    except (OSError, ValueError) as e:
        check(False, "%s: not a JSON document: %s" % (path, e))
        return
    check(not schema_error(validator, document),
          "%s against docs/results.schema.json: %s" % (path, schema_error(validator, document)))


def schema_error(validator, document):
    """The most telling error of a document against the schema, or None."""
    import jsonschema
    worst = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if worst is None:
        return None
    return "%s: %s" % ("/".join(map(str, worst.absolute_path)) or "(top)", worst.message[:300])


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def skip(what, tool=None):
    """Records a part that could not run here (a missing tool): the test is
    then reported skipped, never passed, unless something failed. Where the
    tool it needs is one SPB_REQUIRE_TOOLS names (CI, which installs them:
    gnuplot, chromium, jsonschema, root, /dev/full, nvcc,
    strace), or "gpu" under
    SPB_REQUIRE_GPU=1 (a GPU machine's run), it is a failure."""
    required = tool in os.environ.get("SPB_REQUIRE_TOOLS", "").split(",") or \
        (tool == "gpu" and os.environ.get("SPB_REQUIRE_GPU") == "1")
    if tool and required:
        check(False, "%s (required here: %s)" % (what, tool))
        return
    _skipped.append(what)
    print("SKIPPED:", what, file=sys.stderr)


def skip_whole_test(why, require_env):
    """A test that cannot run here (why) reports itself skipped (77), or
    fails where the environment variable require_env is 1 (CI, which
    installs what it needs); returns when why is None."""
    if not why:
        return
    print("SKIPPED: %s" % why)
    if os.environ.get(require_env) == "1":
        print("FAILED: %s=1, so a skip is a failure" % require_env, file=sys.stderr)
        sys.exit(1)
    sys.exit(SKIP_CODE)


def finish():
    """Prints the tally in the form CI reads and exits with its verdict:
    failed (1), skipped in part (77, naming what), or passed (0)."""
    print("%d passed, %d failed, %d parts skipped" % (_tally["passed"], _tally["failed"],
                                                     len(_skipped)))
    if _tally["failed"]:
        sys.exit(1)
    if _skipped:
        print("not everything ran: " + "; ".join(_skipped))
        sys.exit(SKIP_CODE)
    sys.exit(0)


def read_mtx(path):
    """Returns (m, n, {(i, j): value}) with symmetry expanded, duplicates
    summed; a complex file's values are Python complex numbers (a hermitian
    mirror conjugated)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        banner = f.readline().lower().split()
        fmt, field, symmetry = banner[2], banner[3], banner[4]
        line = f.readline()
        while line.strip() == "" or line.lstrip().startswith("%"):
            line = f.readline()
        sizes = [int(t) for t in line.split()]
        m, n = sizes[0], sizes[1]
        entries = {}

        def add(i, j, v):
            entries[(i, j)] = entries.get((i, j), 0.0) + v

        def mirror(v):
            if symmetry == "skew-symmetric":
                return -v
            return v.conjugate() if symmetry == "hermitian" else v

        def value(t):
            return complex(float(t[0]), float(t[1])) if field == "complex" else float(t[0])

        tokens = [ln.split() for ln in f if ln.strip() and not ln.lstrip().startswith("%")]
    if fmt == "array":
        values = [value(t) for t in tokens]
        k = 0
        for j in range(n):
            first = 0 if symmetry == "general" else j + 1 if symmetry == "skew-symmetric" else j
            for i in range(first, m):
                v = values[k]
                k += 1
                if v != 0:
                    add(i, j, v)
                    if symmetry != "general" and i != j:
                        add(j, i, mirror(v))
        return m, n, entries
    for t in tokens:
        i, j = int(t[0]) - 1, int(t[1]) - 1
        v = 1.0 if field == "pattern" else value(t[2:])
        add(i, j, v)
        if symmetry != "general" and i != j:
            add(j, i, mirror(v))
    return m, n, entries


def run_tests(tests, prefix, module_globals):
    """Runs the test functions (in this order), or the one named on the
    command line, each in the file's temporary folder; then finish().
    A parameter named tmp is that folder; any other NAME is what the
    module's fixture_NAME(...) returns, or what test_NAME returned (its own
    parameters resolved alike), made once per process: a test run alone
    makes what it needs, a test that ran already is not run again."""
    only = sys.argv[3] if len(sys.argv) > 3 else None
    names = [t.__name__ for t in tests]
    if only is not None and only not in names:
        print("FAILED: no test named %s here (%s)" % (only, ", ".join(names)), file=sys.stderr)
        sys.exit(1)
    tmp = tempfile.mkdtemp(prefix=prefix)
    made = {"tmp": tmp}

    def value(name):
        if name not in made:
            maker = module_globals.get("fixture_" + name) or module_globals["test_" + name]
            made[name] = call(maker)
        return made[name]

    def call(fn):
        return fn(*[value(p) for p in inspect.signature(fn).parameters])

    try:
        for test in tests:
            name = test.__name__[len("test_"):]
            if (only is None or test.__name__ == only) and name not in made:
                made[name] = call(test)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    finish()
