"""End-to-end tests of the third hostile trial (issue 74): inputs spbench
did not make (file names, an index, a cache, results handed over) never
run a command, write or delete outside their place, or crash a study;
each test fails on the code before its fix.

usage: e2e_untrusted.py SPBENCH SOURCE_DIR
"""
import fcntl
import html.parser
import json
import os
import shutil
import subprocess
import time

from spbtest import SOURCE, SPBENCH, check, read_rows, skip, spbench, run_tests

BUNDLED = os.path.join(SOURCE, "matrices")
FAST = ["--reps", "1", "--min-time", "0", "--warmup", "0", "--quiet", "--threads", "1"]
CAGE4 = os.path.join(BUNDLED, "cage4.mtx.gz")

# names a file, an index or a results file may hold: each would run a
# command, end a string or open markup if it reached a sink unquoted
HOSTILE = ["c`touch${IFS}PWNED`", "d$(touch PWNED)", "q'; system('touch PWNED') #",
           'dq"x', "a<b>&c", "rtl\u202edcba", "at@x", "back\\slash"]


class Attributes(html.parser.HTMLParser):
    """Every attribute name of every element, and the page's title."""

    def __init__(self):
        super().__init__()
        self.names, self.title, self._in_title = set(), "", False

    def handle_starttag(self, tag, attrs):
        self.names.update(name for name, _ in attrs)
        self._in_title = tag == "title"

    def handle_data(self, data):
        if self._in_title:
            self.title += data

    def handle_endtag(self, tag):
        self._in_title = False


def test_names_reach_gnuplot_and_html_as_text(tmp):
    """Item 1 and 4: matrix names (from file names) and kernel names (from a
    results JSON) that would run a command in gnuplot or add attributes to
    the report's markup are drawn and shown as text: no file is made, the
    charts hold the names, and the page has only its own attributes."""
    folder = os.path.join(tmp, "names")
    os.mkdir(folder)
    for name in HOSTILE:
        shutil.copy(CAGE4, os.path.join(folder, name + ".mtx.gz"))
    csv_path, json_path = os.path.join(tmp, "h.csv"), os.path.join(tmp, "h.json")
    r = spbench("run", *FAST, "--op", "spgemm", "--kernels", "spgemm.gustavson", "--csv",
                csv_path, "--json", json_path, folder, cwd=tmp)
    check(r.returncode == 0, "the study of hostile names runs: %s" % r.stderr[-300:])
    charts = os.path.join(tmp, "charts")
    r = subprocess.run([SPBENCH, "plot", csv_path, charts], capture_output=True, text=True,
                       cwd=tmp)
    if "gnuplot" in r.stderr and "not found" in r.stderr:
        skip("no gnuplot: the charts of hostile names (apt-get install gnuplot-nox)")
    else:
        check(r.returncode == 0, "plot draws the hostile names: %s" % r.stderr[-300:])
        with open(os.path.join(charts, "spgemm_time.svg"), encoding="utf-8") as f:
            svg = html.unescape(f.read())
        missing = [n for n in HOSTILE if n not in svg]
        check(not missing, "every name is in the chart as it is: missing %s" % missing)
    # the report: a kernel name that would add attributes, from a JSON handed over
    with open(json_path, encoding="utf-8") as f:
        doc = json.load(f)
    evil = "spgemm.serial.x tabindex=1 autofocus onfocus=document.title=/PWNED/.source"
    for row in doc["rows"]:
        row["kernel"] = evil if row is doc["rows"][0] else row["kernel"]
    handed = os.path.join(tmp, "handed.json")
    with open(handed, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    page = os.path.join(tmp, "handed.html")
    r = spbench("report", handed, "-o", page, cwd=tmp)
    check(r.returncode == 0, "report takes the study: %s" % r.stderr[-300:])
    parsed = Attributes()
    with open(page, encoding="utf-8") as f:
        parsed.feed(f.read())
    foreign = parsed.names - {"lang", "charset", "name", "content", "class", "id", "data-key",
                              "data-value", "data-table", "title", "alt", "src", "placeholder"}
    check(not foreign, "the page holds only its own attributes: %s" % sorted(foreign))
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        skip("no Chromium: the hostile page in a browser (apt-get install chromium)")
    else:
        r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                            "--dump-dom", "file://" + page], capture_output=True, text=True,
                           timeout=120)
        dom = Attributes()
        dom.feed(r.stdout)
        check(r.returncode == 0 and dom.title == "spbench: handed.json",
              "in a browser the page keeps its title: %r" % dom.title)
    made = [n for n in os.listdir(tmp) if n.startswith("PWNED")]
    check(not made, "no name ran a command: %s" % made)


def test_temp_files_of_others(tmp):
    """Item 3: a run removes only its own output's leftovers that no process
    holds: a user's file that looks like a temporary one stays, and so does
    another writer's locked temporary file whose process id is not alive
    here (another host, another PID namespace)."""
    folder = os.path.join(tmp, "d")
    os.mkdir(folder)
    thesis = os.path.join(folder, "thesis.tmp.20261201")
    with open(thesis, "w") as f:
        f.write("draft\n")
    # a writer on another host: its id means nothing here, its lock does
    other = os.path.join(folder, "r2.json.tmp.99999999")
    held = open(other, "w")
    fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    # a writer of r.json killed with -9: its file is unlocked, and it is r.json's own leftover
    dead = os.path.join(folder, "r.json.tmp.99999998")
    with open(dead, "w") as f:
        f.write("{")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--json",
                os.path.join(folder, "r.json"), CAGE4)
    check(r.returncode == 0 and os.path.exists(os.path.join(folder, "r.json")),
          "the run writes its JSON: %s" % r.stderr[-300:])
    check(os.path.exists(thesis), "a file that only looks temporary is left alone")
    check(os.path.exists(other), "another writer's locked temporary file is left alone")
    check(not os.path.exists(dead), "the output's own dead leftover is removed")
    # writing r2.json while its locked temporary file is held: refused, the file kept
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--json",
                os.path.join(folder, "r2.json"), CAGE4)
    check(r.returncode != 0 and "r2.json" in r.stderr and os.path.exists(other),
          "a run onto a file another host is writing is refused, its file kept: %d %s"
          % (r.returncode, r.stderr.strip()[-300:]))
    held.close()


def test_two_pid_namespaces(tmp):
    """Item 3: two shards in separate PID namespaces (as on two nodes)
    write their JSON into one folder at once: both JSONs are whole (one
    once removed the other's temporary file, whose id was not alive in its
    namespace)."""
    unshare = shutil.which("unshare")
    probe = subprocess.run([unshare or "unshare", "--pid", "--fork", "true"],
                           capture_output=True) if unshare else None
    if os.geteuid() != 0:
        skip("no PID namespaces here (unshare --pid needs root)")
        return
    check(probe is not None and probe.returncode == 0, "unshare --pid works as root")
    folder = os.path.join(tmp, "shared")
    os.mkdir(folder)
    slow = ["run", "--reps", "1", "--warmup", "0", "--quiet", "--threads", "1", "--min-time",
            "3", "--kernels", "csr.serial", "--json", os.path.join(folder, "a.json"), CAGE4]
    # a few processes first, so this shard's id in its namespace is not the other's
    first = subprocess.Popen([unshare, "--pid", "--fork", "sh", "-c",
                              '/bin/true; /bin/true; "$@"; exit $?', "sh", SPBENCH] + slow,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not any(n.startswith("a.json.tmp.")
                                             for n in os.listdir(folder)):
        time.sleep(0.05)
    second = subprocess.run([unshare, "--pid", "--fork", "sh", "-c", '"$@"; exit $?', "sh",
                             SPBENCH, "run", *FAST, "--kernels", "csr.serial", "--json",
                             os.path.join(folder, "b.json"), CAGE4],
                            capture_output=True, text=True, timeout=300)
    _, err = first.communicate(timeout=300)
    check(second.returncode == 0, "the second shard ends well: %s" % second.stderr[-300:])
    check(first.returncode == 0 and os.path.exists(os.path.join(folder, "a.json")),
          "the first shard keeps its JSON: %d %s" % (first.returncode, err[-300:]))


if __name__ == "__main__":
    run_tests([test_names_reach_gnuplot_and_html_as_text, test_temp_files_of_others,
               test_two_pid_namespaces], "spb_e2e_untrusted_", globals())
