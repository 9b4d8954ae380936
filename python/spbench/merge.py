#!/usr/bin/env python3
"""Merges the results of a study run in shards (spbench run --shard I/N) into
one results file: what `spbench merge` runs.

usage: merge.py [--force] [--partial] OUT.csv SHARD.csv... [--json OUT.json SHARD.json...]
       merge.py --processes [--force] OUT.csv RUN.csv... [--json OUT.json RUN.json...]

The shards' CSVs must share one header (this spbench's); a row measured in
two shards (same matrix, operation, kernel, precision, threads, settings) is
refused with its key named, so a shard merged twice cannot slip through; so
is one matrix name measured from two different files (source_id). Every
row was checked before (field count, numbers, status, UTF-8, no key twice)
by spbench itself, with the reader and verdict of `run --resume`; the
outputs appear only when everything merged.
Rows keep their `host` column. The merged JSON keeps every shard's header
(machine, build, settings, bandwidths, totals) under "shards", and all rows.
Each shard's JSON records its --shard I/N: a shard missing, twice or
interrupted is refused, naming which, unless --partial, which merges them
and records what is missing as the JSON's "partial".

With --processes the inputs are not shards but whole runs of one study in
fresh processes (what `run --processes N` writes): every run must hold the
same rows. Each row of OUT is the row of the run whose median is the middle
one (for an even count, the lower of the two middle), so its columns stay
one measurement's; a row wrong or in error in any run is that run's row.
The JSON's rows add process_medians_ms and process_minima_ms (each run's
median and fastest sample, in run order: compare's gate reads the minima) and
process_spread ((largest - smallest) / the kept median); a row whose runs
spread more than NOISY_SPREAD is marked noisy, like a row whose samples do.
An output that is one of the inputs is refused, and an existing output is
replaced only with --force (as `run` does its results files); the outputs
are written through temporary files, renamed into place when all are whole,
and removed on a failure or a signal (which ends the merge with 128 + its
number). Each JSON shard must hold its CSV's rows with the same figures.
Exit status 2 with a message for a usage error or a shard that cannot be
merged (missing, foreign or broken, a row twice, shards that disagree), as
for every spbench command; 1 when the merged files could not be written.
"""
import csv
import io
import json
import math
import os
import signal
import sys

from spbench import results  # the one reader of a results file

KEY = ("matrix", "operation", "kernel", "precision", "threads", "ranks", "settings")
STATUSES = {"ok", "wrong", "skipped", "error"}
WORST_FIRST = ("error", "wrong", "skipped", "ok")  # which run's row a mixed row keeps
NOISY_SPREAD = 0.10  # core/timing.h's SPB_NOISY_SPREAD, between runs here
PROCESS_FIELDS = {"process_medians_ms", "process_minima_ms", "process_spread"}  # by --processes


# the roles of a results file of an older spbench, which did not record
# them ("roles" in the JSON header): baselines as their names began
OLDER_BASELINES = ("csr.serial", "spgemm.gustavson", "librsb", "graphblas", "petsc.")
OLDER_VENDORS = ("cusparse.", "cusp.")
# product times the vendor ratio is split by (ms): launch-bound, middle, long
BUCKETS = ((0, 0.01, "under 10 us"), (0.01, 0.1, "10-100 us"), (0.1, math.inf, "over 100 us"))


class MergeError(Exception):
    pass


# The settings a run sweeps (--hack-size, --block-size, --tile lists) and the
# letters the run's table labels a swept row by (kernel:h16, kernel:b128).
SWEPT = (("hack_size", "h"), ("block_size", "b"), ("tile", "tile"))


def settings_of(r):
    """The row's settings as words; SpGEMM's B (" b=SPEC", always last) is
    left out: a file's name may hold spaces and '='."""
    text = str(r.get("settings") or "").partition(" b=")[0]
    return dict(word.split("=", 1) for word in text.split() if "=" in word)


def swept_settings(rows):
    """{kernel: [(setting, letter, its values)]} for each setting whose
    values differ among the kernel's rows (a sweep gave it several)."""
    seen = {}
    for r in rows:
        values = settings_of(r)
        for name, _ in SWEPT:
            if name in values:
                seen.setdefault(r["kernel"], {}).setdefault(name, set()).add(values[name])
    swept = {}
    for kernel, by_name in seen.items():
        for name, letter in SWEPT:
            values = by_name.get(name, set())
            if len(values) > 1:
                order = sorted(values, key=lambda v: (not v.isdigit(), int(v) if v.isdigit()
                                                      else 0, v))
                swept.setdefault(kernel, []).append((name, letter, order))
    return swept


def row_label(r, swept):
    """The row's kernel, with the swept settings' values as the run's table
    labels it (csr.cuda.warp:b128)."""
    settings = settings_of(r)
    marks = ["%s%s" % (letter, settings.get(name, "?")) for name, letter, _ in
             swept.get(r["kernel"], [])]
    return r["kernel"] + (":" + ",".join(marks) if marks else "")


def first_seen(values):
    """The values without repeats, in the order they first came."""
    return list(dict.fromkeys(values))


def roles_of(study, rows, operation=None):
    """(the speedup baseline and the host library rows, the device library
    rows) of the study's rows of `operation` (rows of one operation), as its
    JSON header records them ("roles_by_operation", or "roles" for the run's
    operation), or for a file of an older spbench as their names began."""
    by_operation = study.get("roles_by_operation")
    run_operation = (study.get("settings") or {}).get("operation") or "spmv"
    if operation is None or operation == run_operation:
        roles = study.get("roles")  # the run's own (also in roles_by_operation)
    elif isinstance(by_operation, dict):
        roles = by_operation.get(operation)
    else:  # an older file's rows of another operation than its run's
        roles = None
    roles = roles if isinstance(roles, dict) else None
    kernels = first_seen(r["kernel"] for r in rows)
    device = {r["kernel"] for r in rows if r.get("backend") == "cuda"}
    if roles:
        libraries = {str(k) for k in roles.get("libraries") or []}
        baselines = [str(roles.get("baseline"))] + [k for k in kernels
                                                     if k in libraries and k not in device]
        vendors = [k for k in kernels if k in libraries and k in device]
    else:
        baselines = [k for k in kernels if k.startswith(OLDER_BASELINES)]
        vendors = [k for k in kernels if k.startswith(OLDER_VENDORS)]
    return [b for b in first_seen(baselines) if b in kernels], vendors


def header_values(study, *path):
    """What the study's header says at path (e.g. "spbench", "git_commit"),
    as distinct texts: a merged study's shards each have a header, and say
    one thing where they agree."""
    shards = study.get("shards")
    headers = shards if study.get("merged") and isinstance(shards, list) else [study]
    values = set()
    for value in headers:
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        values.add(str(value))
    return sorted(values)


def key_of(row):
    return tuple(str(row.get(k, "")) for k in KEY)


def content_of(source_id):
    """The part of a source_id that says what was read (size and checksum),
    not when: copies of one file on two machines agree on it."""
    return " ".join(t for t in str(source_id).split() if not t.startswith("mtime="))


def check_unique(rows, where):
    seen, twice, files = {}, [], {}
    for row, source in rows:
        k = key_of(row)
        if k in seen:
            twice.append("%s (in %s and %s)" % ("/".join(k[:5]), seen[k], source))
        seen[k] = source
        content = content_of(row.get("source_id", ""))
        first = files.setdefault(row["matrix"], (content, source))
        if first[0] != content:
            raise MergeError("%s: matrix %s was measured from different files (%s in %s, %s in "
                             "%s)" % (where, row["matrix"], first[0] or "unreadable", first[1],
                                      content or "unreadable", source))
    if twice:
        raise MergeError("%s: %d row(s) measured twice, e.g. %s" % (where, len(twice),
                                                                   "; ".join(twice[:3])))


def read_text(path):
    try:
        return results.read_text(path)
    except results.ResultsError as e:
        raise MergeError(str(e))


def read_csv(path, header):
    text = read_text(path)
    if text and not text.endswith("\n"):
        raise MergeError("%s:%d: the last row is cut short (no line end): a shard still running "
                         "or killed mid-row; resume it first" % (path, text.count("\n") + 1))
    try:
        fields, rows = results.parse_csv(path, text)
    except results.ResultsError as e:
        raise MergeError(str(e))
    if header is not None and fields != header:
        raise MergeError("%s has other columns than the first shard (another spbench version?)"
                         % path)
    return fields, [(row, path) for row in rows]


STUDY = ("operation", "precision", "settings")  # what a shard's rows were asked for


def check_one_study(rows, where):
    """Shards of one study: every row measured under the same options and
    build (measured_under), and every shard with rows asked for the same
    operations, precisions and settings; else the merged file would state
    one study and hold rows of others."""
    under, asked = {}, {}
    for row, source in rows:
        under.setdefault(row.get("measured_under", ""), source)
        asked.setdefault(source, set()).add(tuple(row.get(k, "") for k in STUDY))
    if len(under) > 1:
        (a, first), (b, second) = list(under.items())[:2]
        raise MergeError("%s: the shards were measured under different options or builds ('%s' "
                         "in %s, '%s' in %s)" % (where, a, first, b, second))
    kinds = list(asked.items())
    for source, kind in kinds[1:]:
        if kind != kinds[0][1]:
            raise MergeError("%s: %s and %s are not shards of one study (operation, precision or "
                             "settings differ: %s against %s)" %
                             (where, kinds[0][0], source, sorted(kinds[0][1]), sorted(kind)))


def merge_csv(shards, where):
    header, rows = None, []
    for path in shards:
        header, more = read_csv(path, header)
        rows += more
    check_unique(rows, where)
    check_one_study(rows, where)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(row for row, _ in rows)
    return out.getvalue(), len(rows)


def read_json(shards):
    """[(path, doc)] of results JSONs, each checked: format, rows, fields."""
    docs = []
    for path in shards:
        try:
            doc = results.parse_json(path, read_text(path))
        except results.ResultsError as e:
            raise MergeError(str(e))
        if not isinstance(doc.get("rows"), list):
            raise MergeError("%s: its rows are not a list of objects" % path)
        columns = str(doc.get("columns", "")).split(",")
        for k, row in enumerate(doc["rows"]):
            # samples_ms is a column, written only when the row has samples
            if set(row) - {"samples_ms"} - PROCESS_FIELDS != set(columns) - {"samples_ms"}:
                raise MergeError("%s: row %d has other fields than the file's columns"
                                 % (path, k + 1))
            if row.get("status") not in STATUSES:
                raise MergeError("%s: row %d: status '%s'" % (path, k + 1, row.get("status")))
        docs.append((path, doc))
    return docs


def shard_of(doc):
    """(I, N) of a shard's JSON (run --shard I/N), or None."""
    text = str((doc.get("settings") or {}).get("shard", ""))
    index, slash, count = text.partition("/")
    return (int(index), int(count)) if slash and index.isdigit() and count.isdigit() else None


def spans(numbers):
    """[1, 2, 3, 5] as "1-3, 5"."""
    out, numbers = [], sorted(numbers)
    for n in numbers:
        if out and out[-1][1] == n - 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ", ".join("%d" % a if a == b else "%d-%d" % (a, b) for a, b in out)


def check_shards(docs, where, partial):
    """Every shard of the study there once and whole: the shards' own I/N
    (written by run --shard) say which are missing and which were
    interrupted. Refused, naming them, unless partial; then what is
    missing, as the merged JSON's "partial"."""
    marks = [(path, shard_of(doc), doc.get("interrupted")) for path, doc in docs]
    if not any(mark for _, mark, _ in marks):
        return None  # runs of an older spbench, or not sharded: nothing to check
    unmarked = [path for path, mark, _ in marks if mark is None]
    if unmarked:
        raise MergeError("%s: %s records no --shard I/N while the others do" % (where, unmarked[0]))
    counts = {mark[1] for _, mark, _ in marks}
    if len(counts) > 1:
        raise MergeError("%s: the shards split the study differently (%s)" % (
            where, " and ".join("/%d" % n for n in sorted(counts))))
    count, seen = counts.pop(), {}
    for path, (index, _), _ in marks:
        if index in seen:
            raise MergeError("%s: shard %d/%d twice (%s and %s)" % (where, index, count, seen[index],
                                                                   path))
        seen[index] = path
    missing = sorted(set(range(1, count + 1)) - set(seen))
    interrupted = sorted(mark[0] for _, mark, cut in marks if cut)
    if (missing or interrupted) and not partial:
        raise MergeError("%s: the study is not whole: %s; merge every shard (resume the "
                         "interrupted ones), or --partial to merge these and say so" % (where, "; ".join(
                             said for said in (
                                 "shard%s %s of %d missing" % ("s" if len(missing) > 1 else "",
                                                                spans(missing), count)
                                 if missing else "",
                                 "shard%s %s interrupted" % ("s" if len(interrupted) > 1 else "",
                                                             spans(interrupted))
                                 if interrupted else "") if said)))
    if missing or interrupted:
        return {"missing": missing, "interrupted": interrupted, "count": count}
    return None


def merge_json(shards, where, partial=False):
    docs = read_json(shards)
    rows = [(row, path) for path, doc in docs for row in doc["rows"]]
    check_unique(rows, where)
    lacking = check_shards(docs, where, partial)
    totals = {}
    for _, doc in docs:
        for k, v in doc.get("totals", {}).items():
            totals[k] = totals.get(k, 0) + v
    merged = {
        "format": "spbench-results",
        "format_version": docs[0][1].get("format_version", 1) if docs else 1,
        "merged": True,
        "shards": [dict({"file": os.path.basename(path)},
                        **{k: v for k, v in doc.items() if k not in ("rows", "format",
                                                                     "format_version")})
                   for path, doc in docs],
        "columns": docs[0][1].get("columns", "") if docs else "",
        "rows": [row for row, _ in rows],
        "totals": totals,
    }
    if lacking:
        merged["partial"] = lacking
        print("spbench merge: %s: partial: shards %s of %d missing, %s interrupted" % (
            where, spans(lacking["missing"]) or "none", lacking["count"],
            spans(lacking["interrupted"]) or "none"), file=sys.stderr)
    return json.dumps(merged, indent=1, allow_nan=False) + "\n", len(rows)


def runs_by_key(runs, paths, where):
    """{key: [row of each run]} in the first run's order; every run must
    hold the same rows (a run cut short is named: resume it first)."""
    check_one_study([pair for rows in runs for pair in rows], where)
    keyed = []
    for rows in runs:
        check_unique(rows, where)
        keyed.append({key_of(row): row for row, _ in rows})
    for path, mine in zip(paths, keyed):
        missing = [k for k in keyed[0] if k not in mine] + [k for k in mine if k not in keyed[0]]
        if missing:
            raise MergeError("%s: %s and %s hold different rows (e.g. %s): a run that did not "
                             "finish? resume it first" % (where, paths[0], path,
                                                           "/".join(missing[0][:3])))
    return {k: [mine[k] for mine in keyed] for k in keyed[0]}


def number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def time_or_none(v):
    """A run's median as JSON holds it: a number, or null where the run has
    none (a skipped row): never NaN, which is not JSON."""
    f = number(v)
    return f if math.isfinite(f) else None


_temps = []  # temporary files being written, removed on a signal


def on_signal(signo, _frame):
    """SIGINT, SIGTERM, SIGHUP: the temporary files written so far are
    removed and the process ends with 128 + the signal (compare's too)."""
    for temp in _temps:
        try:
            os.remove(temp)
        except OSError:
            pass
    os._exit(128 + signo)


def kept_run(rows):
    """The index of the run whose row stands for all: the worst status
    first, then the middle median (the lower middle for an even count)."""
    worst = min(WORST_FIRST.index(r.get("status")) for r in rows)
    if WORST_FIRST[worst] != "ok":
        return next(i for i, r in enumerate(rows) if r.get("status") == WORST_FIRST[worst])
    order = sorted(range(len(rows)), key=lambda i: number(rows[i]["time_ms_median"]))
    return order[(len(rows) - 1) // 2]


def process_row(rows):
    """The kept run's row, with the medians of all runs and their spread."""
    i = kept_run(rows)
    row = dict(rows[i])
    medians = [time_or_none(r["time_ms_median"]) for r in rows]
    kept, timed = medians[i], [m for m in medians if m is not None]
    spread = (max(timed) - min(timed)) / kept if kept and rows[i]["status"] == "ok" else 0.0
    noisy = spread > NOISY_SPREAD or any(str(r.get("noisy")) in ("1", "True") for r in rows)
    was = row.get("noisy")  # kept in its file's form: an int or null in JSON, text in CSV
    if isinstance(was, str):
        row["noisy"] = str(int(noisy))
    elif was is not None or noisy:
        row["noisy"] = 1 if noisy else 0
    return row, medians, spread


def combine_csv(paths, where):
    header, runs = None, []
    for path in paths:
        header, rows = read_csv(path, header)
        runs.append(rows)
    combined = [process_row(rows) for rows in runs_by_key(runs, paths, where).values()]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(row for row, _, _ in combined)
    return out.getvalue(), combined


def combine_json(paths, where):
    docs = read_json(paths)
    by_key = runs_by_key([[(row, path) for row in doc["rows"]] for path, doc in docs],
                         [path for path, _ in docs], where)
    rows, totals = [], {s: 0 for s in WORST_FIRST}
    for runs in by_key.values():
        row, medians, spread = process_row(runs)
        row["process_medians_ms"] = medians
        row["process_minima_ms"] = [time_or_none(r.get("time_ms_min")) for r in runs]
        row["process_spread"] = round(spread, 6)
        rows.append(row)
        totals[row["status"]] += 1
    first = docs[0][1]
    combined = {k: v for k, v in first.items() if k not in ("rows", "totals", "shards")}
    combined.update({
        "processes": [dict({"file": os.path.basename(path)},
                           **{k: v for k, v in doc.items() if k not in ("rows", "format",
                                                                        "format_version")})
                      for path, doc in docs],
        "rows": rows,
        "totals": dict(totals, rows=len(rows)),
    })
    return json.dumps(combined, indent=1, allow_nan=False) + "\n", len(rows)


def spread_report(combined, runs):
    """One line on the spread between the runs, for the terminal."""
    ok = sorted(((spread, row) for row, _, spread in combined if row["status"] == "ok"),
                key=lambda p: p[0])
    if not ok:
        return "no ok row to compare between the %d runs" % runs
    spread, row = ok[-1]
    noisy = sum(1 for s, _ in ok if s > NOISY_SPREAD)
    return ("between the %d runs, the medians of a row spread %.1f%% (median over %d ok rows), "
            "%.1f%% at most (%s %s); %d row%s spread over %.0f%% (marked noisy)" %
            (runs, 100 * ok[len(ok) // 2][0], len(ok), 100 * spread, row["matrix"],
             row["kernel"], noisy, "" if noisy == 1 else "s", 100 * NOISY_SPREAD))


def combine_main(csv_args, json_args):
    """merge.py --processes: the runs of a study in fresh processes as one."""
    outputs = []
    text, combined = combine_csv(csv_args[1:], csv_args[0])
    outputs.append((csv_args[0], text))
    said = ["%s: %d rows, each the middle of %d runs" % (csv_args[0], len(combined),
                                                         len(csv_args) - 1)]
    if json_args:
        check_pairs(csv_args[1:], json_args[1:])
        text, n = combine_json(json_args[1:], json_args[0])
        outputs.append((json_args[0], text))
        said.append("%s: %d rows, with each run's median" % (json_args[0], n))
    write_all(outputs)
    said.append(spread_report(combined, len(csv_args) - 1))
    print("\n".join("# " + line for line in said))


def same_value(text, value):
    """Whether a CSV cell and a JSON value say the same: both are written
    from one row by one formatting, so a number parses to the same double."""
    if value is None:
        return text == ""
    if isinstance(value, list):  # samples_ms
        return [number(t) for t in text.split()] == [number(v) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number(text) == float(value)
    return text == str(value)


def check_pairs(csv_shards, json_shards):
    """Each JSON shard holds the rows of the CSV shard in its place, with the
    same figures, so a CSV and a JSON of different studies (or one edited)
    are never merged side by side."""
    if len(csv_shards) != len(json_shards):
        raise MergeError("%d CSV shards but %d JSON shards: give each CSV's JSON in the same order"
                         % (len(csv_shards), len(json_shards)))
    for csv_path, json_path in zip(csv_shards, json_shards):
        _, rows = read_csv(csv_path, None)
        (_, doc), = read_json([json_path])
        by_key = {key_of(r): r for r in doc["rows"]}
        if sorted(key_of(r) for r, _ in rows) != sorted(by_key):
            raise MergeError("%s and %s hold different rows: not the CSV and JSON of one shard"
                             % (csv_path, json_path))
        check_one_study([(r, json_path) for r in doc["rows"]], json_path)
        for row, _ in rows:
            mine = by_key[key_of(row)]
            for column, text in row.items():
                if column in mine or text != "":
                    if not same_value(text, mine.get(column)):
                        raise MergeError(
                            "%s and %s differ on %s of row %s: '%s' against '%s': not the CSV "
                            "and JSON of one shard" % (csv_path, json_path, column,
                                                       "/".join(key_of(row)[:5]), text,
                                                       mine.get(column)))


def same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def check_outputs(outputs, inputs, force):
    """No output is an input or another output, and none is replaced
    without --force."""
    for k, out in enumerate(outputs):
        for path in inputs:
            if same_file(out, path):
                raise MergeError("%s is also an input: the merge would replace it; name the "
                                 "output first (OUT.csv SHARD.csv...)" % out)
        if any(same_file(out, other) for other in outputs[k + 1:]):
            raise MergeError("%s is named as two outputs" % out)
        if os.path.exists(out) and not force:
            raise MergeError("%s exists: --force replaces it" % out)


def write_all(outputs):
    """Writes every (path, text) through a temporary file and renames them
    into place only when all were written: a failed merge leaves nothing."""
    temps, path = _temps, "output"
    try:
        for path, text in outputs:
            temp = "%s.tmp.%d" % (path, os.getpid())
            temps.append(temp)
            with open(temp, "w", newline="") as f:
                f.write(text)
        for (path, _), temp in zip(outputs, list(temps)):
            os.replace(temp, path)
            temps.remove(temp)
    except OSError as e:
        for temp in temps:
            if os.path.exists(temp):
                os.remove(temp)
        raise MergeError("%s: %s" % (path, e.strerror or e))  # the output, not its temporary


def counted(path, rows, shards):
    return "%s: %d row%s from %d shard%s" % (path, rows, "" if rows == 1 else "s", shards,
                                            "" if shards == 1 else "s")


def main(argv):
    for signo in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signo, on_signal)
    processes = force = partial = False
    while argv and argv[0] in ("--processes", "--force", "--partial"):
        processes |= argv[0] == "--processes"
        force |= argv[0] == "--force"
        partial |= argv[0] == "--partial"
        argv = argv[1:]
    if "--json" in argv:
        at = argv.index("--json")
        csv_args, json_args = argv[:at], argv[at + 1:]
    else:
        csv_args, json_args = argv, []
    if len(csv_args) < 2 or (json_args and len(json_args) < 2):
        print("usage: spbench merge [--processes] [--force] [--partial] OUT.csv SHARD.csv... "
              "[--json OUT.json SHARD.json...]", file=sys.stderr)
        return 2
    try:
        outs = [csv_args[0]] + json_args[:1]
        check_outputs(outs, csv_args[1:] + json_args[1:], force)
        if processes:
            combine_main(csv_args, json_args)
            return 0
        outputs, said = [], []
        text, n = merge_csv(csv_args[1:], csv_args[0])
        outputs.append((csv_args[0], text))
        said.append(counted(csv_args[0], n, len(csv_args) - 1))
        if json_args:
            check_pairs(csv_args[1:], json_args[1:])
            text, n = merge_json(json_args[1:], json_args[0], partial)
            outputs.append((json_args[0], text))
            said.append(counted(json_args[0], n, len(json_args) - 1))
    except MergeError as e:
        print("spbench merge: %s" % e, file=sys.stderr)
        return 2
    try:
        write_all(outputs)
    except MergeError as e:
        print("spbench merge: cannot write %s" % e, file=sys.stderr)
        return 1
    print("\n".join(said))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
