#!/usr/bin/env python3
"""Compares two studies, or two kernels of one study: what `spbench compare`
runs.

usage: compare.py BASE NEW [--strict] [--fail-if-slower PCT [--common-only]
                  [--allow-unjudgeable]] [--csv OUT]
                  [--json OUT] [--markdown OUT] [--chart OUTDIR] [--force]
       compare.py FILE --kernels A,B [...]   (A may be "vendor": per matrix the
                  fastest vendor row, a library's device row, named in each pair)

Rows are matched by their key (matrix and what it was read from, operation,
kernel, precision, threads, ranks, settings). For each pair, the ratio of
NEW's time to BASE's with a 95% interval and a verdict: faster, slower, or
no difference the samples can show.

The statistics (docs/guide/comparing.md): on the logarithms of the
samples (the JSON's samples_ms), the Hodges-Lehmann estimate of the shift
(the median of all differences log new - log base) and the interval of the
Mann-Whitney U test (the differences between the order statistics that
the U distribution puts at 2.5% and 97.5%; exact for up to 25 samples a
side, a normal approximation beyond). Rank-based, so one stalled sample
does not move it, and its coverage does not rest on the times being
normal; a shift model (NEW's distribution BASE's times a factor) is what
it estimates. Rows that carry every process's median (run --processes N,
two or more a side) are compared by those instead: Welch's t interval on
their logarithms, the process being the unit that varies between runs.
Per kernel and overall, the geometric mean of the ratios,
its interval from the rows' intervals (rows independent; the matrices are
the ones measured, not a sample of all matrices).

Each pair shows both ratios: new/base, the ratio of the two medians, and
est, the ratio the samples estimate (the Hodges-Lehmann shift, or Welch's
across processes), which the interval and the verdict belong to; the two
part when a row's samples are skewed.

The CSV keeps the samples too (its samples_ms column); a CSV of an older
spbench has none: its pairs get the ratio of medians and no verdict, and
--fail-if-slower refuses to judge it. The gate judges every pair by its
best times (each side's fastest sample, over its processes) against the
row's noise allowance (judge(); docs/guide/comparing.md): a row whose
allowance reaches 2x is unjudgeable and fails it unless
--allow-unjudgeable; a row
ok in BASE but wrong, in error, skipped or missing in NEW fails it, as
does a NEW whose JSON says it was interrupted (--common-only judges only
the rows both hold); a gate that could judge no pair fails. Rows are checked as read: a row twice, a time that is not a
positive number, samples that are not times are refused naming the file
and row. --markdown writes the table and the geometric means as Markdown
(for a pull request or a report). --csv, --json and --markdown never name
an input, replace an existing file only with --force, and are written
whole or not at all.
Exit status: 0, 1 when --fail-if-slower found a slower row or geometric
mean (its interval wholly above 1 + PCT/100) or could judge nothing, or
--strict found the studies differ (or an output could not be written), 2
for a usage error or an input that cannot be used (unreadable, not a
study, malformed rows, no row in common, an output that exists without
--force), as for every spbench command.
"""
import csv
import io
import json
import math
import os
import shutil
import signal
import sys
import tempfile
from statistics import NormalDist

# a row's key and what a source_id says was read: merge's, so both pair rows alike
from spbench.merge import (BUCKETS, KEY, MergeError, content_of, header_values, on_signal,
                           roles_of, same_file, write_all)
from spbench import results  # the one reader of a results file
from spbench.stats import (DRIFT_MIN_ROWS, Z95, log_se, median, run_spread, shift,
                           welch)  # the statistics, in stats.py

VENDOR = "vendor"  # --kernels vendor,K: per case the fastest vendor row (roles)
GATE_POWER = 1.5  # a row's noise allowance: its spread to this power (docs/guide/comparing.md)
GATE_FAMILY = 0.05  # the study scatter's allowance: one false alarm in 20 studies


class CompareError(Exception):
    pass


# ---- the statistics (stats.py) ----------------------------------------------------

def widen(pairs, tau):
    """Each pair's interval and verdict with the spread between runs added."""
    for p in pairs:
        if p["se"] is None:
            continue
        se = math.sqrt(p["se"] ** 2 + tau ** 2)
        d = math.log(p["ratio"])
        p["se"], p["low"], p["high"] = se, math.exp(d - Z95 * se), math.exp(d + Z95 * se)
        p["verdict"] = verdict(p["ratio"], p["low"], p["high"], True)


def verdict(ratio, low, high, samples_known):
    if ratio is None:
        return "no time"
    if not samples_known:
        return "no samples (a CSV): ratio only"
    if low is None:
        return "too few samples"
    if high < 1:
        return "faster"
    if low > 1:
        return "slower"
    return "no difference shown"


def in_words(p, names=("new", "base")):
    """The verdict as a sentence (hyperfine's form): how many times faster
    or slower the new side is than the base, with its interval; and a word
    where the ratio of the medians points the other way from the estimate
    the verdict rests on."""
    ratio, low, high, said = p["ratio"], p["low"], p["high"], p["verdict"]
    if said == "faster":
        said = "%s %.2fx faster than %s (95%%: %.2f-%.2f)" % (names[0], 1 / ratio, names[1],
                                                             1 / high, 1 / low)
    elif said == "slower":
        said = "%s %.2fx slower than %s (95%%: %.2f-%.2f)" % (names[0], ratio, names[1], low, high)
    elif said == "no difference shown":
        said = "no difference shown (ratio %s-%s)" % (number(low), number(high))
    median = p.get("median_ratio")
    if ratio and median and (median - 1) * (ratio - 1) < 0 and \
            abs(math.log(median / ratio)) > 0.01:
        said += "; the medians' ratio (%s) points the other way: the verdict rests on every " \
                "sample, not on the two medians" % number(median)
    return said


def geomean(pairs):
    """(ratio, low, high) of the geometric mean of the pairs' ratios; the
    interval from their intervals (None without them)."""
    logs = [math.log(p["ratio"]) for p in pairs if p["ratio"]]
    if not logs:
        return None, None, None
    mean = sum(logs) / len(logs)
    with_interval = [p for p in pairs if p["low"] is not None]
    if len(with_interval) != len(logs):
        return math.exp(mean), None, None
    var = sum(((math.log(p["high"]) - math.log(p["low"])) / (2 * Z95)) ** 2 for p in pairs)
    half = Z95 * math.sqrt(var) / len(logs)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


# ---- reading -------------------------------------------------------------------

def key_of(row, kernel=True):
    k = tuple(str(row.get(name, "")) for name in KEY if kernel or name != "kernel")
    return k + (content_of(row.get("source_id", "")),)


def finite(v):
    """v as a finite float, or None."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def row_name(path, k, row):
    return "%s: row %d (%s %s)" % (path, k + 1, row.get("matrix", "?"), row.get("kernel", "?"))


def check_rows(path, rows):
    """Every row an object with a sound time and samples, and no key twice;
    the samples as a list of floats (a CSV's cell is split)."""
    if not isinstance(rows, list):
        raise CompareError("%s: its rows are not a list" % path)
    seen = {}
    for k, row in enumerate(rows):
        if not isinstance(row, dict):
            raise CompareError("%s: row %d is not an object" % (path, k + 1))
        for name in ("matrix", "kernel", "status"):
            if not isinstance(row.get(name), str):
                raise CompareError("%s: its %s is missing or not text" % (row_name(path, k, row),
                                                                         name))
        median = row.get("time_ms_median")
        if median not in (None, "") and (finite(median) is None or finite(median) < 0):
            raise CompareError("%s: time_ms_median is '%s', not a time" % (row_name(path, k, row),
                                                                          median))
        if row["status"] == "ok" and not finite(median):
            raise CompareError("%s: an ok row without a positive time_ms_median"
                               % row_name(path, k, row))
        fastest = row.get("time_ms_min")
        if fastest not in (None, "") and (finite(fastest) is None or finite(fastest) <= 0):
            raise CompareError("%s: time_ms_min is '%s', not a time" % (row_name(path, k, row),
                                                                       fastest))
        for name in ("samples_ms", "process_medians_ms", "process_minima_ms"):
            got = row.get(name)
            if isinstance(got, str):
                got = got.split()
            if name.startswith("process_") and isinstance(got, list):
                got = [v for v in got if v is not None]  # a run without a time (a skipped row)
            if got in (None, []):
                row.pop(name, None)
                continue
            times = [finite(v) if not isinstance(v, bool) else None for v in got] \
                if isinstance(got, list) else [None]
            if any(t is None or t < 0 for t in times):
                raise CompareError("%s: %s holds '%s', not times" % (
                    row_name(path, k, row), name,
                    next((v for v, t in zip(got, times) if t is None or t < 0), got)
                    if isinstance(got, list) else got))
            row[name] = times
        key = key_of(row)
        if key in seen:
            raise CompareError("%s: row measured twice (%s, rows %d and %d)" % (
                path, " ".join(key[:5]), seen[key] + 1, k + 1))
        seen[key] = k
    return rows


def load(path):
    """(header, rows, samples_known) of a results JSON or CSV."""
    try:
        study = results.read(path)
    except results.ResultsError as e:
        raise CompareError(str(e))
    rows = check_rows(path, study.rows)
    ok = [r for r in rows if r.get("status") == "ok"]
    return study.doc, rows, all("samples_ms" in r for r in ok)


def samples(row):
    got = row.get("samples_ms")
    if got:
        return got
    median = time_of(row)
    return [median] if median is not None else []


def time_of(row):
    return finite(row.get("time_ms_median"))


def differences(base_doc, new_doc, base_rows, new_rows):
    """What differs between the two studies, in words."""
    said = []
    for what, path in (("commit", ("spbench", "git_commit")), ("build", ("spbench", "build")),
                       ("compiler", ("spbench", "compiler")), ("CPU", ("machine", "cpu_model")),
                       ("GPU", ("machine", "gpu", "name")),
                       ("settings", ("settings", "row_key"))):
        a, b = header_values(base_doc, *path), header_values(new_doc, *path)
        if base_doc and new_doc and a != b:  # a merged study's shards each say theirs
            said.append("%s: %s against %s" % (what, " / ".join(a), " / ".join(b)))
    for what in ("host", "measured_under"):
        a = sorted({r.get(what, "") for r in base_rows})
        b = sorted({r.get(what, "") for r in new_rows})
        if a != b:
            said.append("%s: %s against %s" % (what, ", ".join(a), ", ".join(b)))
    return said


# ---- pairing -------------------------------------------------------------------

def pair_rows(base_rows, new_rows, samples_known, by_kernel=None, vendors=()):
    """The matched pairs, and the keys found on one side only. With
    by_kernel, a kernel named VENDOR stands for each case's fastest row
    among vendors."""
    def usable(r):
        return r.get("status") == "ok" and time_of(r)

    def rows_of(rows, name):
        if name != VENDOR:
            return {key_of(r, False): r for r in rows if usable(r) and r["kernel"] == name}
        fastest = {}
        for r in rows:
            k = key_of(r, False)
            if usable(r) and r["kernel"] in vendors and (
                    k not in fastest or time_of(r) < time_of(fastest[k])):
                fastest[k] = r
        return fastest

    if by_kernel:
        first, second = by_kernel
        base, new = rows_of(base_rows, first), rows_of(new_rows, second)
        failed = {}
    else:
        base = {key_of(r): r for r in base_rows if usable(r)}
        new = {key_of(r): r for r in new_rows if usable(r)}
        failed = {key_of(r): r for r in new_rows if r.get("status") in ("wrong", "error")}
    pairs = []
    for k in sorted(set(base) & set(new)):
        b, n = base[k], new[k]
        by_process = len(b.get("process_medians_ms") or []) >= 2 and \
            len(n.get("process_medians_ms") or []) >= 2
        if by_process:
            ratio, low, high = welch(b["process_medians_ms"], n["process_medians_ms"])
        else:
            ratio, low, high = shift(samples(b), samples(n))
        if not samples_known:
            ratio, low, high = time_of(n) / time_of(b), None, None
        pairs.append({"matrix": b["matrix"], "kernel": n["kernel"] if not by_kernel else
                      "%s/%s" % (second, first), "precision": b.get("precision", ""),
                      "threads": b.get("threads", ""), "ranks": b.get("ranks", ""),
                      "base_ms": time_of(b), "new_ms": time_of(n),
                      "median_ratio": time_of(n) / time_of(b), "ratio": ratio, "low": low,
                      "high": high, "se": log_se(ratio, low, high),
                      "verdict": verdict(ratio, low, high, samples_known),
                      "base_samples": len(samples(b)), "new_samples": len(samples(n)),
                      "processes": "%d/%d" % (len(b["process_medians_ms"]),
                                              len(n["process_medians_ms"])) if by_process else "",
                      "noisy": "/".join(x for x, r in (("base", b), ("new", n))
                                         if str(r.get("noisy", "0")) == "1"),
                      "base_row": b, "new_row": n,
                      "vendor": b["kernel"] if by_kernel and by_kernel[0] == VENDOR else ""})
    only = sorted(set(base) ^ set(new))
    broken = ["%s %s (%s in NEW)" % (failed[k]["matrix"], failed[k]["kernel"], failed[k]["status"])
              for k in sorted(set(base) & set(failed))]
    # ok in BASE, and in NEW skipped or not there at all: the gate sees them too
    in_new = {key_of(r): r for r in new_rows} if not by_kernel else {}
    lost = ["%s %s (%s in NEW)" % (base[k]["matrix"], base[k]["kernel"],
                                   in_new[k].get("status") if k in in_new else "missing")
            for k in sorted(set(base) - set(new) - set(failed))] if not by_kernel else []
    return pairs, [("BASE" if k in base else "NEW", k) for k in only], broken, lost


def no_match(base_rows, new_rows, by_kernel):
    """Why no pair was found, naming what differs between the keys."""
    ok_base = [r for r in base_rows if r.get("status") == "ok"]
    ok_new = [r for r in new_rows if r.get("status") == "ok"]
    if by_kernel:
        have = {r["kernel"] for r in ok_base}
        missing = [k for k in by_kernel if k not in have]
        if missing:
            return "no ok row of kernel %s in the file (its kernels: %s)" % (
                ", ".join(missing), ", ".join(sorted(have)) or "none")
        return ("no matrix has ok rows of both %s and %s at the same threads, ranks, precision "
                "and settings" % tuple(by_kernel))
    said = []
    for name in KEY + ("source_id",):
        a = {content_of(r.get(name, "")) if name == "source_id" else str(r.get(name, ""))
             for r in ok_base}
        b = {content_of(r.get(name, "")) if name == "source_id" else str(r.get(name, ""))
             for r in ok_new}
        if a and b and not a & b:
            said.append("%s: %s in BASE, %s in NEW" % (name, " | ".join(sorted(a)[:2]),
                                                       " | ".join(sorted(b)[:2])))
    return ("no row of one matches a row of the other (same matrix and file, kernel, "
            "operation, precision, threads, ranks, settings)" +
            ("; they differ in %s" % "; ".join(said) if said else ""))


# ---- output --------------------------------------------------------------------

def number(v, digits=3):
    return "-" if v is None else "%.*f" % (digits, v)


def print_gate(pairs, geomean_best, pct, out):
    """The gate's judgement: its counts, each row it does not pass, the
    geometric mean of the best ratios, and how many rows had one process."""
    counts = {}
    for p in pairs:
        counts[p["gate"]] = counts.get(p["gate"], 0) + 1
    print("\n# the gate (--fail-if-slower %g): best new/base (each side's fastest sample, over "
          "its processes) against %.2f x the row's noise allowance: %s; geometric mean of best "
          "new/base %.3f" % (pct, 1 + pct / 100.0, ", ".join(
              "%d %s" % (c, g) for g, c in sorted(counts.items())), geomean_best[0]), file=out)
    for p in pairs:
        if p["gate"] != "ok":
            print("#   %s: %s %s thr %s ranks %s: best new/base %.3f, allowance %.3f" % (
                p["gate"], p["matrix"], p["kernel"], p["threads"], p["ranks"], p["best_ratio"],
                p["allowance"]), file=out)
    single = sum(1 for p in pairs if len(best_times(p["base_row"])) < 2 or
                 len(best_times(p["new_row"])) < 2)
    if single:
        print("# %d of %d rows have one process on a side: the gate cannot see how far two runs "
              "differ there and judges them by their samples and the study's scatter; on a busy "
              "machine that gives false alarms: run --processes 5 on both sides "
              "(docs/guide/comparing.md)" % (single, len(pairs)), file=out)


def print_table(pairs, summary, only, said, samples_known, out, two_runs=True, spread=None,
                names=("new", "base")):
    if said:
        print("# the studies differ: " + "; ".join(said), file=out)
    by_process = sum(1 for p in pairs if p["processes"])
    if by_process:
        print("# %d of %d pairs: intervals from the spread between processes (run --processes; "
              "Welch's t on the logarithms of each process's median)" % (by_process, len(pairs)),
              file=out)
    if two_runs and samples_known and by_process < len(pairs):
        print("# %s: intervals from each run's own samples, which leave out how much two "
              "runs of one binary differ (2%% on a 2-core machine, docs/results); measure with run "
              "--processes N, or run an A/A comparison here before trusting a small verdict"
              % ("the other pairs" if by_process else "all pairs"), file=out)
    if spread:
        print("# every interval widened by the spread between the two runs that the rows' own "
              "intervals leave out, %.1f%% (from how the rows scatter about their median)"
              % (100 * (math.exp(spread) - 1)), file=out)
    if not samples_known:
        print("# a CSV of an older spbench keeps no samples: ratios of medians only, no interval "
              "or verdict (compare the JSONs for them)", file=out)
    print("# new/base: the ratio of the medians; est: the ratio the samples estimate, which the "
          "interval and the verdict belong to", file=out)
    width = max([24] + [len(p["kernel"]) for p in pairs])  # a kernel's name is never cut
    print("%-24s %-*s %4s %5s %11s %11s %8s %7s %17s  %s" % (
        "matrix", width, "kernel", "thr", "ranks", "base_ms", "new_ms", "new/base", "est",
        "95% interval", "verdict"), file=out)
    for p in pairs:
        interval = "-" if p["low"] is None else "[%s, %s]" % (number(p["low"]), number(p["high"]))
        print("%-24.24s %-*s %4s %5s %11.4g %11.4g %8s %7s %17s  %s%s" % (
            p["matrix"], width, p["kernel"], p["threads"], p["ranks"], p["base_ms"], p["new_ms"],
            number(p["median_ratio"]), number(p["ratio"]), interval, in_words(p, names),
            (" (noisy: %s)" % p["noisy"] if p["noisy"] else "") +
            (" [vendor: %s]" % p["vendor"] if p["vendor"] else "")), file=out)
    print("\n# geometric mean of new/base (95% interval)", file=out)
    for name, (ratio, low, high, count) in summary.items():
        interval = "" if low is None else " [%s, %s]" % (number(low), number(high))
        print("%-*s %s%s over %d row%s" % (max(40, len(name)), name, number(ratio), interval, count,
                                             "" if count == 1 else "s"), file=out)
    counts = {}
    for p in pairs:
        counts[p["verdict"]] = counts.get(p["verdict"], 0) + 1
    print("# %d pairs: %s" % (len(pairs), ", ".join("%d %s" % (c, v) for v, c in
                                                    sorted(counts.items()))), file=out)
    for side, k in only[:10]:
        print("# only in %s: %s" % (side, " ".join(k[:3])), file=out)
    if len(only) > 10:
        print("# ... %d more rows in one file only" % (len(only) - 10), file=out)


def summarize(pairs):
    """The geometric means per kernel and overall; against VENDOR, also
    split by the vendor's time per product (BUCKETS)."""
    summary = {}
    for name in sorted({p["kernel"] for p in pairs}):
        mine = [p for p in pairs if p["kernel"] == name]
        summary[name] = geomean(mine) + (len(mine),)
    summary["all"] = geomean(pairs) + (len(pairs),)
    if any(p["vendor"] for p in pairs):
        for low, high, label in BUCKETS:
            mine = [p for p in pairs if low <= p["base_ms"] < high]
            if mine:
                summary["all, the vendor's time %s" % label] = geomean(mine) + (len(mine),)
    return summary


def check_outputs(opts):
    """--csv, --json and --markdown name neither an input nor one another,
    and replace an existing file only with --force."""
    outs = [(o, opts[o]) for o in ("csv", "json", "markdown") if opts[o]]
    for option, path in outs:
        for given in opts["files"]:
            if same_file(path, given):
                raise CompareError("--%s %s is an input of the comparison: it would be replaced; "
                                   "name another file" % (option, path))
        if os.path.exists(path) and not opts["force"]:
            raise CompareError("--%s %s exists: --force replaces it" % (option, path))
    for k, (option, path) in enumerate(outs):
        for other, again in outs[k + 1:]:
            if same_file(path, again):
                raise CompareError("--%s and --%s name one file (%s)" % (option, other, path))


def markdown(pairs, summary, label, names=("new", "base")):
    """The comparison as Markdown: one table row per pair, then the
    geometric means (pipes in names escaped)."""
    def cell(text):
        return str(text).replace("|", "\\|")
    lines = ["| matrix | kernel | threads | ranks | base ms | new ms | %s | est | 95%% interval "
             "| verdict |" % label, "|---|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for p in pairs:
        interval = "" if p["low"] is None else "[%s, %s]" % (number(p["low"]), number(p["high"]))
        lines.append("| %s | %s%s | %s | %s | %.4g | %.4g | %s | %s | %s | %s%s |" % (
            cell(p["matrix"]), cell(p["kernel"]),
            "" if p["precision"] == "fp64" else "/" + p["precision"], p["threads"], p["ranks"],
            p["base_ms"], p["new_ms"], number(p["median_ratio"]), number(p["ratio"]), interval,
            cell(in_words(p, names)), " (noisy: %s)" % cell(p["noisy"]) if p["noisy"] else ""))
    lines += ["", "| geometric mean of %s | ratio | 95%% interval | rows |" % label,
              "|---|---:|---|---:|"]
    for name, (ratio, low, high, count) in summary.items():
        interval = "" if low is None else "[%s, %s]" % (number(low), number(high))
        lines.append("| %s | %s | %s | %d |" % (cell(name), number(ratio), interval, count))
    return "\n".join(lines) + "\n"


def write_outputs(pairs, summary, csv_path, json_path, markdown_path=None, label="new/base",
                  names=("new", "base")):
    fields = ["matrix", "kernel", "precision", "threads", "ranks", "base_ms", "new_ms",
              "median_ratio", "ratio", "low", "high", "verdict", "base_samples", "new_samples",
              "processes", "noisy", "best_ratio", "allowance", "gate", "vendor"]
    written = [{k: p.get(k, "") for k in fields} for p in pairs]
    outputs = []
    if csv_path:
        out = io.StringIO()
        w = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(written)
        outputs.append((csv_path, out.getvalue()))
    if json_path:
        outputs.append((json_path, json.dumps(
            {"pairs": written, "geomean": {k: dict(zip(("ratio", "low", "high", "rows"), v))
                                           for k, v in summary.items()}}, indent=1)))
    if markdown_path:
        outputs.append((markdown_path, markdown(pairs, summary, label, names)))
    try:  # merge's writer: through temporary files, renamed when all are whole
        write_all(outputs)
    except MergeError as e:
        raise CompareError("cannot write %s" % e)


def best_times(row):
    """A row's fastest sample in each process: process_minima_ms (run
    --processes), else its time_ms_min, else its fastest kept sample, else
    its median."""
    minima = row.get("process_minima_ms") or []
    if len(minima) >= 2:
        return minima
    for fastest in (finite(row.get("time_ms_min")), min(samples(row) or [0]) or None):
        if fastest:
            return [fastest]
    return [time_of(row)]


def side_spread(row):
    """How far a side's best time may sit from what it would be in another
    run, as a factor: between processes, the median process's fastest
    sample over the fastest's (the upper median for an even count: the
    slower of two; one process of five stalled throughout does not count,
    three do); in one process, its median over its fastest sample."""
    best = sorted(best_times(row))
    if len(best) >= 2:
        return best[len(best) // 2] / best[0]
    return max(1.0, time_of(row) / best[0])


def study_spread(ratios):
    """The factor by which the rows' best-time ratios scatter about their
    median, at the confidence of one in GATE_FAMILY false alarms over the
    whole study: exp(z * 1.4826 * MAD of their logarithms), z the normal
    quantile at 1 - GATE_FAMILY / (number of rows). 1 for fewer than
    DRIFT_MIN_ROWS rows (too few to tell)."""
    if len(ratios) < DRIFT_MIN_ROWS:
        return 1.0
    logs = [math.log(r) for r in ratios]
    centre = median(logs)
    tau = 1.4826 * median(abs(x - centre) for x in logs)
    return math.exp(NormalDist().inv_cdf(1 - GATE_FAMILY / len(ratios)) * tau)


def judge(pairs, pct):
    """The gate's judgement of each pair (docs/guide/comparing.md): NEW's
    best time over BASE's, against 1 + pct/100 times the row's noise
    allowance, the spread to the power GATE_POWER: the larger side's
    between its processes, or, where a side is one run, its samples' or
    the study's scatter if wider. A row whose allowance is 2x or more
    cannot show a 2x slowdown: unjudgeable. Sets each pair's best_ratio,
    allowance and gate; returns the geometric mean of the best ratios and
    its upper bound of a one-sided 95% interval's lower end."""
    bound = 1 + pct / 100.0
    for p in pairs:
        p["best_ratio"] = min(best_times(p["new_row"])) / min(best_times(p["base_row"]))
    scatter = study_spread([p["best_ratio"] for p in pairs])
    for p in pairs:
        spread = max(side_spread(p["base_row"]), side_spread(p["new_row"]))
        if min(len(best_times(p["base_row"])), len(best_times(p["new_row"]))) < 2:
            spread = max(spread, scatter)  # one run a side shows nothing of the next run
        p["allowance"] = spread ** GATE_POWER
        if p["allowance"] >= 2:
            p["gate"] = "unjudgeable"
        else:
            p["gate"] = "slower" if p["best_ratio"] > bound * p["allowance"] else "ok"
    logs = [math.log(p["best_ratio"]) for p in pairs]
    mean = sum(logs) / len(logs)
    tau = math.log(scatter) / NormalDist().inv_cdf(1 - GATE_FAMILY / len(pairs)) \
        if scatter > 1 else 0.0
    return math.exp(mean), math.exp(mean - 1.645 * tau / math.sqrt(len(logs)))


def gate(pairs, geomean_best, pct, broken, allow_unjudgeable=False):
    """What fails the gate (pairs judged): rows judged slower, rows it
    cannot judge (unless allowed), a geometric mean of the best ratios
    slower, and rows that broke in NEW."""
    bound = 1 + pct / 100.0
    geo, geo_low = geomean_best
    slow = ["%s %s (best new/base %.3f over %.3f)" % (p["matrix"], p["kernel"], p["best_ratio"],
                                                     bound * p["allowance"])
            for p in pairs if p["gate"] == "slower"]
    if not allow_unjudgeable:
        slow += ["%s %s (unjudgeable: its noise allowance is %.2fx; --allow-unjudgeable passes "
                 "it)" % (p["matrix"], p["kernel"], p["allowance"])
                 for p in pairs if p["gate"] == "unjudgeable"]
    if geo_low > bound:
        slow.append("the geometric mean of the best new/base, %.3f" % geo)
    return slow + broken


def gate_refusal(known):
    """Why --fail-if-slower cannot judge these studies, or None."""
    if not known:
        return ("a file has ok rows without samples (a CSV of an older spbench?): the gate "
                "judges samples; compare the JSONs, or measure again")
    return None


def draw_chart(pairs, outdir):
    """compare.png and .svg in outdir, drawn by spbench.plots.compare_chart."""
    from spbench.plots import compare_chart, drawing
    if shutil.which("gnuplot") is None:
        raise CompareError("--chart needs gnuplot (sudo apt-get install gnuplot-nox)")
    os.makedirs(outdir, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="spbench_compare_") as workdir:
        failed = drawing.draw(compare_chart.chart_compare(pairs, workdir), workdir, outdir)
    if failed:
        raise CompareError(failed)
    print("%s/compare.png, %s/compare.svg" % (outdir, outdir))


def parse(argv):
    opts = {"files": [], "strict": False, "pct": None, "csv": None, "json": None,
            "markdown": None, "kernels": None, "chart": None, "force": False,
            "common_only": False, "allow_unjudgeable": False}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--strict", "--force", "--common-only", "--allow-unjudgeable"):
            opts[a[2:].replace("-", "_")] = True
        elif a in ("--fail-if-slower", "--csv", "--json", "--markdown", "--kernels", "--chart"):
            if i + 1 >= len(argv):
                raise CompareError("%s needs a value" % a)
            i += 1
            opts[{"--fail-if-slower": "pct"}.get(a, a[2:])] = argv[i]
        elif a.startswith("-"):
            raise CompareError("unknown option %s" % a)
        else:
            opts["files"].append(a)
        i += 1
    if opts["pct"] is not None:
        try:
            opts["pct"] = float(opts["pct"])
        except ValueError:
            raise CompareError("--fail-if-slower takes a percentage, not %s" % opts["pct"])
        if not math.isfinite(opts["pct"]) or opts["pct"] < 0:
            raise CompareError("--fail-if-slower takes a percentage of 0 or more, not %s"
                               % argv[argv.index("--fail-if-slower") + 1])
    want = 1 if opts["kernels"] else 2
    if len(opts["files"]) != want:
        raise CompareError("give BASE and NEW, or one FILE with --kernels A,B")
    if opts["kernels"]:
        names = opts["kernels"].split(",")
        if len(names) != 2 or not all(names):
            raise CompareError("--kernels takes two kernel names: A,B (B against A)")
        opts["kernels"] = names
    return opts


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # compare ... | head ends quietly
    for signo in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signo, on_signal)
    try:
        opts = parse(argv)
    except CompareError as e:
        print("spbench compare: %s\nusage: spbench compare BASE NEW [--strict] "
              "[--fail-if-slower PCT [--common-only] [--allow-unjudgeable]] [--csv OUT] [--json OUT] "
              "[--markdown OUT] "
              "[--chart OUTDIR] [--force]\n"
              "       spbench compare FILE --kernels A,B  (A may be 'vendor')" % e,
              file=sys.stderr)
        return 2
    try:  # inputs that cannot be used: 2, as for every command
        check_outputs(opts)
        base_doc, base_rows, base_samples = load(opts["files"][0])
        new_doc, new_rows, new_samples = (base_doc, base_rows, base_samples) if opts["kernels"] \
            else load(opts["files"][1])
        known = base_samples and new_samples
        vendors = roles_of(base_doc, base_rows)[1] if opts["kernels"] else ()
        if opts["kernels"] and VENDOR in opts["kernels"] and not vendors:
            raise CompareError("--kernels %s: the file has no vendor row (a library's device "
                               "row)" % ",".join(opts["kernels"]))
        pairs, only, broken, lost = pair_rows(base_rows, new_rows, known, opts["kernels"],
                                              vendors)
        if not pairs:
            raise CompareError(no_match(base_rows, new_rows, opts["kernels"]))
    except (CompareError, OSError) as e:
        print("spbench compare: %s" % e, file=sys.stderr)
        return 2
    try:  # what the comparison finds: 1
        said = [] if opts["kernels"] else differences(base_doc, new_doc, base_rows, new_rows)
        if said and opts["strict"]:
            raise CompareError("the studies differ (--strict): " + "; ".join(said))
        spread = run_spread(pairs) if known and not opts["kernels"] else None
        if spread:  # two runs: their intervals widened by what differs between runs
            widen(pairs, spread)
        summary = summarize(pairs)
        geomean_best = judge(pairs, opts["pct"]) if opts["pct"] is not None and known else None
        names = (opts["kernels"][1], opts["kernels"][0]) if opts["kernels"] else ("new", "base")
        print_table(pairs, summary, only, said, known, sys.stdout, not opts["kernels"], spread,
                    names)
        if geomean_best:
            print_gate(pairs, geomean_best, opts["pct"], sys.stdout)
        write_outputs(pairs, summary, opts["csv"], opts["json"], opts["markdown"],
                      "%s/%s" % names, names)
        if opts["chart"]:
            draw_chart(pairs, opts["chart"])
    except (CompareError, OSError) as e:
        print("spbench compare: %s" % e, file=sys.stderr)
        return 1
    if opts["pct"] is not None:
        refusal = gate_refusal(known)
        if refusal:
            print("spbench compare: --fail-if-slower cannot judge: %s" % refusal, file=sys.stderr)
            return 1
        slow = gate(pairs, geomean_best, opts["pct"], broken, opts["allow_unjudgeable"])
        if not opts["common_only"]:
            slow += lost
            if new_doc.get("interrupted"):
                slow.insert(0, "NEW was interrupted (%s): its study is not whole" %
                            new_doc["interrupted"])
        if slow:
            print("spbench compare: slower by more than %g%% (or broken or lost in NEW; "
                  "--common-only judges only the rows both hold): %s%s" %
                  (opts["pct"], "; ".join(slow[:5]),
                   " and %d more" % (len(slow) - 5) if len(slow) > 5 else ""), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
