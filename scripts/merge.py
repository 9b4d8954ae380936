#!/usr/bin/env python3
"""Merges the results of a study run in shards (spbench run --shard I/N) into
one results file: what `spbench merge` runs.

usage: merge.py OUT.csv SHARD.csv... [--json OUT.json SHARD.json...]

The shards' CSVs must share one header (this spbench's); a row measured in
two shards (same matrix, operation, kernel, precision, threads, settings) is
refused with its key named, so a shard merged twice cannot slip through.
Rows keep their `host` column. The merged JSON keeps every shard's header
(machine, build, settings, bandwidths, totals) under "shards", and all rows.
Exit status 1 with a message for a missing or foreign file or a duplicate.
"""
import csv
import json
import os
import sys

KEY = ("matrix", "operation", "kernel", "precision", "threads", "settings")


class MergeError(Exception):
    pass


def key_of(row):
    return tuple(str(row.get(k, "")) for k in KEY)


def check_unique(rows, where):
    seen, twice = {}, []
    for row, source in rows:
        k = key_of(row)
        if k in seen:
            twice.append("%s (in %s and %s)" % ("/".join(k[:5]), seen[k], source))
        seen[k] = source
    if twice:
        raise MergeError("%s: %d row(s) measured twice, e.g. %s" % (where, len(twice),
                                                                   "; ".join(twice[:3])))


def merge_csv(out, shards):
    header, rows = None, []
    for path in shards:
        try:
            with open(path, newline="") as f:
                reader = csv.DictReader(f)
                if not reader.fieldnames or reader.fieldnames[:2] != ["matrix", "kernel"]:
                    raise MergeError("%s is not a spbench results CSV" % path)
                if header is None:
                    header = reader.fieldnames
                elif reader.fieldnames != header:
                    raise MergeError("%s has other columns than %s (another spbench version?)"
                                     % (path, shards[0]))
                rows += [(row, path) for row in reader]
        except OSError as e:
            raise MergeError("%s: %s" % (path, e.strerror))
    check_unique(rows, out)
    with open(out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(row for row, _ in rows)
    return len(rows)


def merge_json(out, shards):
    docs = []
    for path in shards:
        try:
            doc = json.load(open(path))
        except OSError as e:
            raise MergeError("%s: %s" % (path, e.strerror))
        except ValueError as e:
            raise MergeError("%s is not valid JSON (a shard still running?): %s" % (path, e))
        if doc.get("format") != "spbench-results":
            raise MergeError("%s is not a spbench results JSON" % path)
        docs.append((path, doc))
    rows = [(row, path) for path, doc in docs for row in doc.get("rows", [])]
    check_unique(rows, out)
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
    with open(out, "w") as f:
        json.dump(merged, f, indent=1)
        f.write("\n")
    return len(rows)


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
        n = merge_csv(csv_args[0], csv_args[1:])
        print("%s: %d rows from %d shards" % (csv_args[0], n, len(csv_args) - 1))
        if json_args:
            n = merge_json(json_args[0], json_args[1:])
            print("%s: %d rows from %d shards" % (json_args[0], n, len(json_args) - 1))
    except MergeError as e:
        print("spbench merge: %s" % e, file=sys.stderr)
        return 1
    return 0


sys.exit(main(sys.argv[1:]))
