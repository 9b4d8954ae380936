#!/usr/bin/env python3
"""Merges the results of a study run in shards (spbench run --shard I/N) into
one results file: what `spbench merge` runs.

usage: merge.py OUT.csv SHARD.csv... [--json OUT.json SHARD.json...]

The shards' CSVs must share one header (this spbench's); a row measured in
two shards (same matrix, operation, kernel, precision, threads, settings) is
refused with its key named, so a shard merged twice cannot slip through; so
is one matrix name measured from two different files (source_id). Every
row was checked before (field count, numbers, status, UTF-8, no key twice)
by spbench itself, with the reader and verdict of `run --resume`; the
outputs appear only when everything merged.
Rows keep their `host` column. The merged JSON keeps every shard's header
(machine, build, settings, bandwidths, totals) under "shards", and all rows.
Exit status 1 with a message for a missing, foreign or broken file or a duplicate.
"""
import csv
import io
import json
import os
import sys

KEY = ("matrix", "operation", "kernel", "precision", "threads", "ranks", "settings")
STATUSES = {"ok", "wrong", "skipped", "error"}


class MergeError(Exception):
    pass


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
        data = open(path, "rb").read()
    except OSError as e:
        raise MergeError("%s: %s" % (path, e.strerror))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise MergeError("%s:%d: bytes that are not UTF-8" % (path, data[:e.start].count(b"\n")
                                                               + 1))


def read_csv(path, header):
    text = read_text(path)
    if text and not text.endswith("\n"):
        raise MergeError("%s:%d: the last row is cut short (no line end): a shard still running "
                         "or killed mid-row; resume it first" % (path, text.count("\n") + 1))
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if not reader.fieldnames or reader.fieldnames[:2] != ["matrix", "kernel"]:
        raise MergeError("%s is not a spbench results CSV" % path)
    if header is not None and reader.fieldnames != header:
        raise MergeError("%s has other columns than the first shard (another spbench version?)"
                         % path)
    return reader.fieldnames, [(row, path) for row in reader]


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


def merge_json(shards, where):
    docs = []
    for path in shards:
        try:
            doc = json.loads(read_text(path))
        except ValueError as e:
            raise MergeError("%s is not valid JSON (a shard still running?): %s" % (path, e))
        if not isinstance(doc, dict) or doc.get("format") != "spbench-results":
            raise MergeError("%s is not a spbench results JSON" % path)
        if not isinstance(doc.get("rows"), list) or not all(isinstance(r, dict)
                                                            for r in doc["rows"]):
            raise MergeError("%s: its rows are not a list of objects" % path)
        columns = str(doc.get("columns", "")).split(",")
        for k, row in enumerate(doc["rows"]):
            if set(row) - {"samples_ms"} != set(columns):  # samples: the timing's own
                raise MergeError("%s: row %d has other fields than the file's columns"
                                 % (path, k + 1))
            if row.get("status") not in STATUSES:
                raise MergeError("%s: row %d: status '%s'" % (path, k + 1, row.get("status")))
        docs.append((path, doc))
    rows = [(row, path) for path, doc in docs for row in doc["rows"]]
    check_unique(rows, where)
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
    return json.dumps(merged, indent=1) + "\n", len(rows)


def check_pairs(csv_shards, json_shards):
    """Each JSON shard holds the rows of the CSV shard in its place, so a
    CSV and a JSON of different studies are never merged side by side."""
    if len(csv_shards) != len(json_shards):
        raise MergeError("%d CSV shards but %d JSON shards: give each CSV's JSON in the same order"
                         % (len(csv_shards), len(json_shards)))
    for csv_path, json_path in zip(csv_shards, json_shards):
        _, rows = read_csv(csv_path, None)
        try:
            doc = json.loads(read_text(json_path))
            json_keys = sorted(key_of(r) for r in doc.get("rows", []))
        except (ValueError, AttributeError, TypeError):
            continue  # merge_json names what is wrong with it
        if sorted(key_of(r) for r, _ in rows) != json_keys:
            raise MergeError("%s and %s hold different rows: not the CSV and JSON of one shard"
                             % (csv_path, json_path))


def write_all(outputs):
    """Writes every (path, text) through a temporary file and renames them
    into place only when all were written: a failed merge leaves nothing."""
    temps = []
    try:
        for path, text in outputs:
            temp = "%s.tmp.%d" % (path, os.getpid())
            temps.append(temp)
            with open(temp, "w", newline="") as f:
                f.write(text)
        for (path, _), temp in zip(outputs, temps):
            os.replace(temp, path)
    except OSError as e:
        for temp in temps:
            if os.path.exists(temp):
                os.remove(temp)
        raise MergeError("%s: %s" % (e.filename or "output", e.strerror))


def counted(path, rows, shards):
    return "%s: %d row%s from %d shard%s" % (path, rows, "" if rows == 1 else "s", shards,
                                            "" if shards == 1 else "s")


def main(argv):
    if "--json" in argv:
        at = argv.index("--json")
        csv_args, json_args = argv[:at], argv[at + 1:]
    else:
        csv_args, json_args = argv, []
    if len(csv_args) < 2 or (json_args and len(json_args) < 2):
        print("usage: spbench merge OUT.csv SHARD.csv... [--json OUT.json SHARD.json...]",
              file=sys.stderr)
        return 2
    try:
        outputs, said = [], []
        text, n = merge_csv(csv_args[1:], csv_args[0])
        outputs.append((csv_args[0], text))
        said.append(counted(csv_args[0], n, len(csv_args) - 1))
        if json_args:
            check_pairs(csv_args[1:], json_args[1:])
            text, n = merge_json(json_args[1:], json_args[0])
            outputs.append((json_args[0], text))
            said.append(counted(json_args[0], n, len(json_args) - 1))
        write_all(outputs)
        print("\n".join(said))
    except MergeError as e:
        print("spbench merge: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
