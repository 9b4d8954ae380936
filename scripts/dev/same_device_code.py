#!/usr/bin/env python3
"""Whether the working tree's GPU sources compile to the same device code
as a revision's: each CUDA file of a configured build (its
compile_commands.json) compiled twice, from a checkout of REV and of the
working tree's tracked files (new ones once staged), with the build's own
flags; their .nv_fatbin sections (every cubin and PTX the build makes)
compared byte for byte.

A change that leaves them identical (a helper named, a comment) needs no
device to land; any other change to device code runs there first
(CONTRIBUTING.md). Needs a build configured with CUDA, say

    cmake -B build-dev -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90
    scripts/dev/same_device_code.py HEAD build-dev

Exit 0 when every file's device code is the same, 1 when one differs,
2 when it could not be told.
"""
import concurrent.futures
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile


def fatbin(obj, out):
    """The object's device code (empty when it has none)."""
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", obj, out],
                   check=True)
    with open(out, "rb") as f:
        return f.read()


def compile_from(entry, source, build, tree, obj):
    """entry's command, its sources and includes read from tree (the
    build's own generated files from the build)."""
    def moved(arg):
        return arg if build in arg else arg.replace(source, tree)

    given = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    args, skip = [], 0
    for i, a in enumerate(given):
        if skip:
            skip -= 1
        elif a == "--options-file":  # the includes, in a response file
            with open(os.path.join(entry["directory"], given[i + 1]), encoding="utf-8") as f:
                args += [moved(x) for x in shlex.split(f.read())]
            skip = 1
        elif a in ("-MT", "-MF"):  # dependency files: the build's, not these
            skip = 1
        elif a != "-MD":
            args.append(moved(a))
    args[args.index("-o") + 1] = obj
    done = subprocess.run(args, cwd=entry["directory"], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("%s: %s" % (entry["file"], done.stderr[-600:]))


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) > 1 else 2
    rev = argv[1]
    build = os.path.abspath(argv[2] if len(argv) > 2 else "build-dev")
    source = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                            text=True, check=True).stdout.strip()
    try:
        with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
            entries = [e for e in json.load(f) if e["file"].endswith(".cu")]
    except OSError as e:
        print("same_device_code: %s (configure a CUDA build first: --help)" % e, file=sys.stderr)
        return 2
    if not entries:
        print("same_device_code: %s compiles no CUDA file" % build, file=sys.stderr)
        return 2
    # the working tree's tracked files as a commit (new files count once
    # staged); both sides compile at one path, which names the anonymous
    # namespaces of cub's kernels
    state = subprocess.run(["git", "stash", "create"], capture_output=True, text=True,
                           check=True).stdout.strip() or "HEAD"
    work = tempfile.mkdtemp(prefix="spb-device-code-")
    tree = os.path.join(work, "tree")
    try:
        subprocess.run(["git", "worktree", "add", "--detach", "-q", tree, rev], check=True)
        for side, commit in (("base", rev), ("tree", state)):
            subprocess.run(["git", "-C", tree, "checkout", "-q", "--detach", commit], check=True)
            with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
                jobs = [pool.submit(compile_from, e, source, build, tree,
                                    os.path.join(work, "%d.%s.o" % (i, side)))
                        for i, e in enumerate(entries)]
                for j in jobs:
                    j.result()
        differ = 0
        for i, e in enumerate(entries):
            objs = [os.path.join(work, "%d.%s.o" % (i, s)) for s in ("base", "tree")]
            same = fatbin(objs[0], objs[0] + ".fb") == fatbin(objs[1], objs[1] + ".fb")
            differ += not same
            print("%-8s %s" % ("same" if same else "DIFFERS", os.path.relpath(e["file"], source)))
        print("%d of %d CUDA files compile to other device code than %s's" %
              (differ, len(entries), rev))
        return 1 if differ else 0
    except (subprocess.CalledProcessError, RuntimeError) as e:
        print("same_device_code: %s" % e, file=sys.stderr)
        return 2
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", tree], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
