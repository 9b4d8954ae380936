"""The one reader of a study's results file, for every command that takes
one (compare, merge, report, plot): the file read as UTF-8, a JSON checked
for its format and version (docs/results.schema.json), a CSV for its
header, each refusal one line naming the file. What a command checks
beyond that (its rows' fields and values) stays with the command."""
import csv
import io
import json

FORMAT = "spbench-results"
# the newest format_version this package reads: a file of a later spbench
# (a field removed, renamed or changed in meaning) is refused, not misread
FORMAT_VERSION = 1


class ResultsError(ValueError):
    """A file that is not a results file this package reads; the message
    names the file."""


class Results:
    """A results file: kind ("json" or "csv"), doc (the JSON's header and
    rows; {} for a CSV), columns (the CSV's header, or the JSON's column
    list) and rows (dicts)."""

    def __init__(self, kind, doc, columns, rows):
        self.kind, self.doc, self.columns, self.rows = kind, doc, columns, rows


def read_text(path):
    """The file's text; a byte that is not UTF-8 refused with its line."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ResultsError("%s: %s" % (path, e.strerror or e))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ResultsError("%s:%d: bytes that are not UTF-8"
                           % (path, data[:e.start].count(b"\n") + 1))


def looks_like_json(path, text):
    return path.endswith(".json") or text.lstrip().startswith("{")


def parse_json(path, text):
    """The results JSON's document: its format, version and rows checked."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise ResultsError("%s is not valid JSON (a run still writing it?): %s" % (path, e))
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ResultsError("%s is not a spbench results JSON (run --json, merge --json)" % path)
    version = doc.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ResultsError("%s: its format_version is %.40r, not a version number"
                           % (path, version))
    if version > FORMAT_VERSION:
        raise ResultsError("%s is format_version %d, written by a later spbench; this one "
                           "reads up to %d" % (path, version, FORMAT_VERSION))
    rows = doc.get("rows", [])
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ResultsError("%s: its rows are not a list of objects" % path)
    return doc


def parse_csv(path, text):
    """(header, rows) of a results CSV: its first two columns named as
    spbench writes them."""
    if not text:
        raise ResultsError("%s is empty: no header and no rows" % path)
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = reader.fieldnames
        if not header or header[:2] != ["matrix", "kernel"]:
            raise ResultsError("%s is not a spbench results CSV (its header does not begin "
                               "matrix,kernel)" % path)
        return header, list(reader)
    except csv.Error as e:
        raise ResultsError("%s: malformed CSV: %s" % (path, e))


def read(path, kinds=("json", "csv")):
    """The results file at path, a JSON or a CSV by its name or its first
    character, refused when it is not one of kinds."""
    return parse(path, read_text(path), kinds)


def parse(path, text, kinds=("json", "csv")):
    """read's work on a file's text already read (path names it)."""
    if looks_like_json(path, text):
        if "json" not in kinds:
            raise ResultsError("%s is a JSON; this command reads a results CSV" % path)
        doc = parse_json(path, text)
        columns = str(doc.get("columns") or "").split(",")
        return Results("json", doc, [c for c in columns if c], doc.get("rows", []))
    if "csv" not in kinds:
        first = text.split("\n", 1)[0]
        hint = ("; it reads like a results CSV: this command takes the study's JSON (spbench run "
                "--json FILE, or merge --json)" if first.startswith("matrix,") and ",kernel,"
                in first else "")
        raise ResultsError("%s is not a spbench results JSON%s" % (path, hint))
    header, rows = parse_csv(path, text)
    return Results("csv", {}, header, rows)


def text_rows(study):
    """A Results' rows with every value as the CSV writes it ('' for none,
    samples space-separated), for scripts written against the CSV: a run
    kept as its JSON alone reads the same."""
    if study.kind == "csv":
        return study.rows

    def text(v):
        return "" if v is None else " ".join(map(str, v)) if isinstance(v, list) else str(v)
    return [{k: text(v) for k, v in r.items()} for r in study.rows]
