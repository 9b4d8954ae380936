#!/usr/bin/env python3
"""Matrices from the SuiteSparse Matrix Collection, chosen by what they are:
what `spbench fetch` runs.

usage: fetch.py [SELECTION] [--list FILE] [-o LIST [--force]] [--cache DIR] [--jobs N]
                [--timeout S] [--dry-run] [--refresh] [--base URL]

SELECTION, from the collection's index (ssstats.csv: group, name, rows,
columns, entries, real, binary, kind, ...), all of them together:
  --group GLOB, --name GLOB, --kind GLOB   shell patterns, any case
                                           (--kind 'graph*', --group SNAP)
  --min-nnz N, --max-nnz N                 entries (1e6 and 5e7 are numbers)
  --min-rows N, --max-rows N               rows
  --real                                   real values (not binary, integer
                                           or complex)
  --square                                 as many rows as columns
  --max N                                  the N smallest by entries (with
                                           --largest: the N largest)
--list FILE takes Group/Name lines ('#' comments) instead, or besides.

The matrices chosen are listed, with how many are in the cache already and
how many bytes the rest will take to download, before anything is fetched;
--dry-run stops there. Downloads run --jobs at a time (default 4); a
connection dropped mid-file is resumed from where it stopped (an HTTP
range), up to three times; a transfer slower than 1 KB/s over 30 s is
dropped, and --timeout S ends the whole fetch after S seconds (default:
none). Two fetches of one matrix at once share its download: the second
waits for the first. Each archive (Group/Name.tar.gz, holding
Name/Name.mtx) is checked: a whole gzip stream, its CRC and length read to
its end, a Matrix Market banner, and the rows and columns the index gives
(the collection publishes no checksums). A group or name of the index that
is not a plain file name (a '/', '..', a blank, a control character, ...)
is left out, with a count said once; in --list it is refused. Matrices are kept in the cache (--cache, default
$XDG_CACHE_HOME/spbench/matrices or ~/.cache/spbench/matrices) as
Group/Name.mtx.gz, where a later fetch finds them; the index is kept there
too and fetched again after a week (--refresh: now). -o LIST writes the
chosen matrices' paths, one per line, for `spbench run @LIST`; it is
written only when every one of them is in the cache, and an existing LIST
is replaced only with --force.

The collection is https://sparse.tamu.edu (--base or SPB_FETCH_BASE: a
mirror laid out alike: BASE/files/ssstats.csv, BASE/MM/Group/Name.tar.gz).
Exit status 0 when every matrix chosen is in the cache; 1 when one could
not be fetched (each named), the collection cannot be reached (one line),
or the cache's disk is full; 2 for a usage error.
"""
import concurrent.futures
import csv
import fcntl
import fnmatch
import gzip
import http.client
import os
import re
import shutil
import sys
import tarfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib

BASE = "https://sparse.tamu.edu"
INDEX_MAX_AGE_S = 7 * 24 * 3600
TRIES = 4  # a download and three resumptions
TIMEOUT_S = 30
CHUNK = 1 << 20
MIN_RATE, RATE_WINDOW_S = 1000, 30  # a transfer slower than 1 KB/s over 30 s is dropped
# what a group or a name may be: the collection's own are letters, digits and _ . + -
PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*\Z")


class FetchError(Exception):
    pass


class UsageError(Exception):
    pass


# ---- the index ----------------------------------------------------------------------

FIELDS = ("group", "name", "rows", "cols", "nnz", "real", "binary", "nd", "posdef",
          "pattern_symmetry", "numerical_symmetry", "kind")


def parse_index(text):
    """The matrices of ssstats.csv: its first line is their count, its
    second the collection's date, then one line per matrix."""
    lines = text.splitlines()
    if len(lines) < 3 or not lines[0].strip().isdigit():
        raise FetchError("the index is not the collection's ssstats.csv (first line: %r)"
                         % (lines[0][:60] if lines else ""))
    matrices, left_out = [], []
    for number, row in enumerate(csv.reader(lines[2:]), start=3):
        if not row:
            continue
        if len(row) < len(FIELDS):
            raise FetchError("the index's line %d has %d fields, not %d or more"
                             % (number, len(row), len(FIELDS)))
        m = dict(zip(FIELDS, row))
        try:
            for field in ("rows", "cols", "nnz"):
                m[field] = int(float(m[field]))
            for field in ("real", "binary"):
                m[field] = int(float(m[field])) == 1
        except ValueError:
            raise FetchError("the index's line %d: a count that is not a number" % number)
        if not (plain_name(m["group"]) and plain_name(m["name"])):
            left_out.append(number)
            continue
        matrices.append(m)
    if left_out:
        print("spbench fetch: %d line(s) of the index left out: a group or name that is not a "
              "plain file name (line %s)" % (len(left_out), ", ".join(map(str, left_out[:5]))),
              file=sys.stderr)
    return matrices


def plain_name(text):
    """Whether text may be one part of a path in the cache and of a URL:
    letters, digits, _ . + - only, not starting with '.' or '-' (so never
    '..', a '/', a blank or a control character)."""
    return bool(PLAIN_NAME.match(text)) and ".." not in text


def open_url(url, start=0, deadline=None):
    request = urllib.request.Request(url, headers={"User-Agent": "spbench-fetch"})
    if start:
        request.add_header("Range", "bytes=%d-" % start)
    return urllib.request.urlopen(request, timeout=wait_s(deadline))


def wait_s(deadline):
    """How long one network wait may last: TIMEOUT_S, less near the deadline."""
    if deadline is None:
        return TIMEOUT_S
    left = deadline - time.monotonic()
    if left <= 0:
        raise FetchError("--timeout: the time given has passed")
    return min(TIMEOUT_S, left)


class SlowTransfer(Exception):
    pass


def transfer(response, write, deadline):
    """The response's body through write(bytes), as it arrives; a transfer
    slower than MIN_RATE over RATE_WINDOW_S raises SlowTransfer (a server
    that sends a byte now and then never trips a read's own timeout), and
    one past the deadline FetchError."""
    window_start, window_bytes = time.monotonic(), 0
    while True:
        wait_s(deadline)
        chunk = response.read1(CHUNK)
        if not chunk:
            return
        write(chunk)
        window_bytes += len(chunk)
        now = time.monotonic()
        if now - window_start >= RATE_WINDOW_S:
            if window_bytes < MIN_RATE * (now - window_start):
                raise SlowTransfer("slower than %d bytes/s for %d s" % (MIN_RATE, RATE_WINDOW_S))
            window_start, window_bytes = now, 0


def unreachable(base, e):
    reason = getattr(e, "reason", e)
    return FetchError("cannot reach %s (offline?): %s" % (base, reason))


def load_index(base, cache, refresh, deadline=None):
    """The index, from the cache while it is under a week old (unless
    refresh), else fetched and kept; offline, the cached one."""
    path = os.path.join(cache, "ssstats.csv")
    fresh = os.path.exists(path) and time.time() - os.path.getmtime(path) < INDEX_MAX_AGE_S
    if fresh and not refresh:
        with open(path, encoding="utf-8", errors="replace") as f:
            return parse_index(f.read())
    try:
        body = []
        with open_url(base + "/files/ssstats.csv", deadline=deadline) as response:
            transfer(response, body.append, deadline)
        text = b"".join(body).decode("utf-8", errors="replace")
    except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError,
            SlowTransfer) as e:
        if os.path.exists(path):
            print("spbench fetch: %s; the index kept in the cache is used"
                  % unreachable(base, e), file=sys.stderr)
            with open(path, encoding="utf-8", errors="replace") as f:
                return parse_index(f.read())
        raise unreachable(base, e)
    matrices = parse_index(text)
    write_whole(path, text.encode("utf-8"))
    return matrices


# ---- the selection --------------------------------------------------------------------

def number(text, option):
    try:
        value = float(text)
    except ValueError:
        raise UsageError("%s needs a number, not %r" % (option, text))
    if value < 0:
        raise UsageError("%s needs a number of at least 0, not %r" % (option, text))
    return value


def select(matrices, opts):
    """The matrices every criterion admits, smallest first by entries (the
    largest first with --largest), then the first --max."""
    def admits(m):
        for field in ("group", "name", "kind"):
            pattern = opts[field]
            if pattern is not None and not fnmatch.fnmatch(m[field].lower(), pattern.lower()):
                return False
        low_nnz, high_nnz = opts["min_nnz"], opts["max_nnz"]
        low_rows, high_rows = opts["min_rows"], opts["max_rows"]
        return ((low_nnz is None or m["nnz"] >= low_nnz) and
                (high_nnz is None or m["nnz"] <= high_nnz) and
                (low_rows is None or m["rows"] >= low_rows) and
                (high_rows is None or m["rows"] <= high_rows) and
                (not opts["real"] or (m["real"] and not m["binary"])) and
                (not opts["square"] or m["rows"] == m["cols"]))
    chosen = sorted((m for m in matrices if admits(m)),
                    key=lambda m: (m["nnz"], m["group"], m["name"]), reverse=opts["largest"])
    return chosen[:opts["max"]] if opts["max"] is not None else chosen


def read_list(path):
    """The Group/Name entries of a list, read before anything is fetched (a
    list that cannot be read is said as such, not as an unreachable
    index)."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError("cannot read the list %s: %s" % (path, getattr(e, "strerror", None) or e))
    entries = []
    for number, line in enumerate(lines, start=1):
        entry = line.split("#", 1)[0].strip()
        if not entry:
            continue
        group, slash, name = entry.partition("/")
        if not slash or not plain_name(group) or not plain_name(name):
            raise UsageError("%s:%d: %r is not Group/Name (each a plain file name)"
                             % (path, number, entry))
        entries.append((group, name))
    return entries


def listed(entries, matrices):
    """The listed matrices, each found in the index (one not there is kept,
    without the index's figures)."""
    by_key = {(m["group"], m["name"]): m for m in matrices}
    return [by_key.get((group, name), {"group": group, "name": name, "rows": None,
                                       "cols": None, "nnz": None, "kind": "?"})
            for group, name in entries]


# ---- downloading -----------------------------------------------------------------------

def write_whole(path, data):
    """data into path through a temporary file renamed into place."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temp = "%s.part.%d" % (path, os.getpid())
    try:
        with open(temp, "wb") as f:
            f.write(data)
        os.replace(temp, path)
    except OSError:
        if os.path.exists(temp):
            os.remove(temp)
        raise


def archive_url(base, m):
    return "%s/MM/%s/%s.tar.gz" % (base, urllib.parse.quote(m["group"], safe=""),
                                   urllib.parse.quote(m["name"], safe=""))


def archive_size(base, m):
    """The archive's bytes (HTTP HEAD), or None when the server does not say."""
    request = urllib.request.Request(archive_url(base, m), method="HEAD",
                                     headers={"User-Agent": "spbench-fetch"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            length = response.headers.get("Content-Length")
            return int(length) if length and length.isdigit() else None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException):
        return None


def download(url, part, deadline=None):
    """The archive into part, resumed from part's size where a connection
    dropped or crawled (up to TRIES attempts). A disk error propagates as
    OSError."""
    for attempt in range(TRIES):
        have = os.path.getsize(part) if os.path.exists(part) else 0
        try:
            with open_url(url, have, deadline) as response:
                if have and response.status != 206:  # the server ignored the range
                    have = 0
                total = response.headers.get("Content-Length")
                total = have + int(total) if total and total.isdigit() else None
                with open(part, "ab" if have else "wb") as f:
                    transfer(response, f.write, deadline)
            if total is None or os.path.getsize(part) == total:
                return
        except urllib.error.HTTPError as e:
            if e.code == 416:  # the range starts at the end: a part already whole
                return
            raise FetchError("%s: HTTP %d %s" % (url, e.code, e.reason))
        except (urllib.error.URLError, ConnectionError, TimeoutError, SlowTransfer,
                http.client.HTTPException) as e:
            if attempt + 1 == TRIES:
                raise FetchError("%s: the connection dropped or crawled %d times: %s"
                                 % (url, TRIES, getattr(e, "reason", e)))
    raise FetchError("%s: ended short %d times" % (url, TRIES))


def unpack(part, m, target):
    """Name/Name.mtx out of the archive, checked (banner; rows and columns
    as the index gives them), into target gzip-compressed."""
    member = "%s/%s.mtx" % (m["name"], m["name"])
    temp = "%s.part.%d" % (target, os.getpid())
    try:
        with tarfile.open(part, "r:gz") as archive:
            try:
                source = archive.extractfile(member)
            except KeyError:
                source = None
            if source is None:
                raise FetchError("the archive holds no %s" % member)
            banner = source.readline()
            if not banner.lower().startswith(b"%%matrixmarket"):
                raise FetchError("%s is not a Matrix Market file" % member)
            with gzip.open(temp, "wb", compresslevel=6) as out:
                out.write(banner)
                for line in iter(source.readline, b""):
                    out.write(line)
                    if not line.startswith(b"%") and line.strip():
                        check_size(line.split(), m, member)
                        break
                shutil.copyfileobj(source, out, CHUNK)
            # to the stream's end: gzip checks its CRC and length only there
            while archive.fileobj.read(CHUNK):
                pass
        os.replace(temp, target)
    except (tarfile.TarError, EOFError, gzip.BadGzipFile, zlib.error) as e:
        remove_quietly(temp)
        raise FetchError("a corrupt archive: %s" % e)
    except (OSError, FetchError):
        remove_quietly(temp)
        raise


def remove_quietly(path):
    try:
        os.remove(path)
    except OSError:
        pass


def check_size(fields, m, member):
    if m.get("rows") is None:
        return
    try:
        rows, cols = int(fields[0]), int(fields[1])
    except (IndexError, ValueError):
        raise FetchError("%s has no size line" % member)
    if (rows, cols) != (m["rows"], m["cols"]):
        raise FetchError("%s is %d x %d, the index says %d x %d"
                         % (member, rows, cols, m["rows"], m["cols"]))


def list_text(text):
    """A field of the index as text on one line of a list file: control
    characters (a tab, a newline) as '?', at most 100 characters."""
    return re.sub(r"[\x00-\x1f\x7f]", "?", str(text))[:100]


def cached_path(cache, m):
    return os.path.join(cache, m["group"], m["name"] + ".mtx.gz")


def fetch_one(base, cache, m, deadline=None):
    """One matrix into the cache, under its download's lock (a second
    fetch of it waits, then finds it cached); the archive's part file stays
    on a dropped connection (a later fetch resumes it) and goes on success
    or on a corrupt archive."""
    if not (plain_name(m["group"]) and plain_name(m["name"])):  # checked on entry; again here
        raise FetchError("not a plain file name: %r/%r" % (m["group"], m["name"]))
    target = cached_path(cache, m)
    part = os.path.join(cache, ".downloads", "%s__%s.tar.gz" % (m["group"], m["name"]))
    os.makedirs(os.path.dirname(part), exist_ok=True)
    with download_lock(part + ".lock", deadline):
        if os.path.exists(target):  # another fetch brought it while this one waited
            return
        os.makedirs(os.path.dirname(target), exist_ok=True)
        try:
            download(archive_url(base, m), part, deadline)
        except OSError:  # the disk: the part is not kept, its space is wanted
            remove_quietly(part)
            raise
        try:
            unpack(part, m, target)
        finally:
            if os.path.exists(part):
                os.remove(part)


class download_lock:
    """An exclusive lock on path, made for the purpose and removed after; a
    wait for another process's lock ends at the deadline. The lock is taken
    on the file the path names when it is held (a file removed by its last
    holder while this one waited is made again)."""

    def __init__(self, path, deadline):
        self.path, self.deadline, self.fd = path, deadline, None

    def __enter__(self):
        said = False
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                if not said:
                    print("spbench fetch: %s: another fetch is downloading it; waiting"
                          % os.path.basename(self.path)[:-len(".tar.gz.lock")].replace("__", "/"),
                          file=sys.stderr)
                    said = True
                wait_s(self.deadline)
                time.sleep(0.2)
                continue
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                self.fd = fd
                return self
            os.close(fd)

    def __exit__(self, *exc):
        remove_quietly(self.path)
        os.close(self.fd)
        return False


# ---- the command ------------------------------------------------------------------------

def default_cache():
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "spbench", "matrices")


def parse(argv):
    opts = {"group": None, "name": None, "kind": None, "min_nnz": None, "max_nnz": None,
            "min_rows": None, "max_rows": None, "real": False, "square": False, "max": None,
            "largest": False, "list": None, "out": None, "cache": default_cache(), "jobs": 4,
            "dry_run": False, "refresh": False, "force": False, "timeout": None,
            "base": os.environ.get("SPB_FETCH_BASE") or BASE}
    valued = {"--group": "group", "--name": "name", "--kind": "kind", "--min-nnz": "min_nnz",
              "--max-nnz": "max_nnz", "--min-rows": "min_rows", "--max-rows": "max_rows",
              "--max": "max", "--list": "list", "-o": "out", "--cache": "cache",
              "--jobs": "jobs", "--base": "base", "--timeout": "timeout"}
    flags = {"--real": "real", "--square": "square", "--largest": "largest",
             "--dry-run": "dry_run", "--refresh": "refresh", "--force": "force"}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in flags:
            opts[flags[a]] = True
        elif a in valued:
            if i + 1 >= len(argv):
                raise UsageError("%s needs a value" % a)
            i += 1
            opts[valued[a]] = argv[i]
        else:
            raise UsageError("unknown option %r (see spbench fetch --help)" % a)
        i += 1
    for key in ("min_nnz", "max_nnz", "min_rows", "max_rows"):
        if opts[key] is not None:
            opts[key] = number(opts[key], "--" + key.replace("_", "-"))
    for key, option in (("max", "--max"), ("jobs", "--jobs")):
        if opts[key] is not None:
            value = number(str(opts[key]), option)
            if value != int(value) or value < 1:
                raise UsageError("%s needs a whole number of at least 1" % option)
            opts[key] = int(value)
    if opts["timeout"] is not None:
        opts["timeout"] = number(opts["timeout"], "--timeout")
        if opts["timeout"] <= 0:
            raise UsageError("--timeout needs seconds above 0")
    opts["deadline"] = (time.monotonic() + opts["timeout"]) if opts["timeout"] else None
    if opts["out"] is not None and os.path.lexists(opts["out"]) and not opts["force"]:
        raise UsageError("-o %s exists; --force replaces it" % opts["out"])
    criteria = [k for k in ("group", "name", "kind", "min_nnz", "max_nnz", "min_rows", "max_rows",
                            "real", "square", "max") if opts[k] not in (None, False)]
    if not criteria and opts["list"] is None:
        raise UsageError("name what to fetch: criteria (--kind, --min-nnz, ...) or --list FILE")
    opts["criteria"] = criteria
    opts["base"] = opts["base"].rstrip("/")
    return opts


def human(count):
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1000 or unit == "GB":
            return ("%d %s" if unit == "B" else "%.1f %s") % (count, unit)
        count /= 1000.0


def plan(opts, chosen):
    """Says what was chosen, what the cache holds, and what the rest will
    take; the matrices still to fetch."""
    missing = [m for m in chosen if not os.path.exists(cached_path(opts["cache"], m))]
    with concurrent.futures.ThreadPoolExecutor(opts["jobs"]) as pool:
        sizes = list(pool.map(lambda m: archive_size(opts["base"], m), missing))
    known = [s for s in sizes if s is not None]
    print("%d matrices chosen: %d in the cache (%s), %d to fetch, %s%s of archives"
          % (len(chosen), len(chosen) - len(missing), opts["cache"], len(missing),
             human(sum(known)), "" if len(known) == len(missing) else " or more"))
    for m in chosen:
        figures = ("" if m.get("rows") is None else
                   "  %d x %d, %d entries, %s" % (m["rows"], m["cols"], m["nnz"], m["kind"]))
        print("  %s/%s%s%s" % (m["group"], m["name"], figures,
                                "" if m in missing else "  (cached)"))
    return missing


def fetch_all(opts, missing):
    """Fetches the missing matrices, jobs at a time; the names of those that
    failed, each with its reason (printed as they fail)."""
    failed, lock, done = [], threading.Lock(), [0]
    disk_full = threading.Event()

    def one(m):
        if disk_full.is_set():
            return
        key = "%s/%s" % (m["group"], m["name"])
        try:
            fetch_one(opts["base"], opts["cache"], m, opts["deadline"])
            why = None
        except FetchError as e:
            why = str(e)
        except OSError as e:
            why = "cannot write the cache %s: %s" % (opts["cache"], e.strerror or e)
            if e.errno == 28:
                disk_full.set()
        with lock:
            done[0] += 1
            if why:
                failed.append(key)
                print("spbench fetch: %s: %s" % (key, why), file=sys.stderr)
            else:
                print("[%d/%d] %s" % (done[0], len(missing), key), file=sys.stderr)

    with concurrent.futures.ThreadPoolExecutor(opts["jobs"]) as pool:
        list(pool.map(one, missing))
    if disk_full.is_set():
        print("spbench fetch: the cache's disk is full (%s): free space or give --cache DIR"
              % opts["cache"], file=sys.stderr)
    return failed, disk_full.is_set()


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.split("\n", 2)[2])
        return 0
    try:
        opts = parse(argv)
        entries = read_list(opts["list"]) if opts["list"] else []
        matrices = load_index(opts["base"], opts["cache"], opts["refresh"], opts["deadline"])
        chosen = listed(entries, matrices)
        if opts["criteria"]:
            chosen += [m for m in select(matrices, opts) if m not in chosen]
    except UsageError as e:
        print("spbench fetch: %s" % e, file=sys.stderr)
        return 2
    except FetchError as e:
        print("spbench fetch: %s" % e, file=sys.stderr)
        return 1
    except OSError as e:
        print("spbench fetch: cannot use the cache %s: %s" % (opts["cache"], e.strerror or e),
              file=sys.stderr)
        return 1
    if not chosen:
        print("spbench fetch: no matrix of the index (%d) meets the criteria" % len(matrices),
              file=sys.stderr)
        return 1
    missing = plan(opts, chosen)
    if opts["dry_run"]:
        return 0
    failed, disk_full = fetch_all(opts, missing)
    absent = [m for m in chosen if not os.path.exists(cached_path(opts["cache"], m))]
    if failed or disk_full or absent:
        print("spbench fetch: %d of %d not in the cache%s" % (
            len(absent), len(chosen), "; %s not written" % opts["out"] if opts["out"] else ""),
            file=sys.stderr)
        return 1
    if opts["out"]:
        header = "# spbench fetch %s\n" % " ".join(argv)
        # each matrix's kind, for `spbench report --kinds LIST` (a comment to run)
        kinds = "".join("# kind: %s\t%s\n" % (list_text(m["name"]),
                                                list_text(m.get("kind") or "?"))
                        for m in chosen)
        paths = "".join(os.path.abspath(cached_path(opts["cache"], m)) + "\n" for m in chosen)
        try:
            write_whole(os.path.abspath(opts["out"]), (header + kinds + paths).encode("utf-8"))
        except OSError as e:
            print("spbench fetch: cannot write %s: %s" % (opts["out"], e.strerror or e),
                  file=sys.stderr)
            return 1
        print("%s: %d matrices (spbench run @%s)" % (opts["out"], len(chosen), opts["out"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
