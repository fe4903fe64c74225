"""A job for the job server's tests (tests/pipeline/test_jobserver.py): what a worker sees, one subcommand each."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time

tempfile.gettempdir()  # cached in the server, as an import may do: a worker must take the job's TMPDIR

#: a module global: set by one job, it must not be seen by the next
STATE = None


def main(argv: list[str]) -> int:
    global STATE
    cmd, *rest = argv
    if cmd == "echo":  # what the job sees of its process: argv, cwd, environment, umask, stdin, temp folder
        print(json.dumps({"argv": argv, "cwd": os.getcwd(), "probe": os.environ.get("PROBE"),
                          "gone": "GONE" in os.environ, "umask": os.umask(0o022), "stdin": sys.stdin.read(),
                          "tmp": tempfile.gettempdir(), "argv0": os.path.basename(sys.argv[0])}))
        print("to stderr", file=sys.stderr)
        return 0
    if cmd == "set":
        before, STATE = STATE, rest[0]
        print(json.dumps(before))
        return 0
    if cmd == "fail":
        print("probe: error: one line", file=sys.stderr)
        return 2
    if cmd == "sleep":  # write the pid, then wait to be killed
        with open(rest[0], "w") as fh:
            fh.write(str(os.getpid()))
        time.sleep(120)
        return 0
    raise ValueError(cmd)
