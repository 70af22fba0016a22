#!/usr/bin/env python3
"""The floor under a pre-forked Python hook on this machine, with no agent-hooks at all: a warm
interpreter that has compiled a hook script and imported what it imports forks once per call;
the child runs the compiled script on the payload (stdin and stdout on pipes, as a hook's are)
and leaves with os._exit; the parent reads the answer and reaps the child. Each call is timed
from the fork to the reaped exit.

Two figures: the fork, an immediate os._exit and the reap alone (what a forked interpreter
costs before it runs a line), and the same with the script run. Whatever runs the script in a
fresh fork per call (a forker, `fire` in front of it, a socket between them) costs at least
the second figure; benches/prefork.sh measures that whole path.

Usage: benches/prefork_floor.py SCRIPT PAYLOAD_FILE [CALLS]   (CALLS=300)
"""

import gc
import io
import os
import statistics
import sys
import time


def call(code, path, payload, run):
    stdin_r, stdin_w = os.pipe()
    out_r, out_w = os.pipe()
    os.write(stdin_w, payload)
    os.close(stdin_w)
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.dup2(stdin_r, 0)
        os.dup2(out_w, 1)
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False))
        if run:
            main = {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__}
            try:
                exec(code, main)
            except SystemExit:
                pass
        sys.stdout.flush()
        os._exit(0)
    os.close(stdin_r)
    os.close(out_w)
    while os.read(out_r, 65536):
        pass
    os.close(out_r)
    os.waitpid(pid, 0)
    return time.perf_counter() - start


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, payload = sys.argv[1], open(sys.argv[2], "rb").read()
    calls = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    source = open(path, "rb").read()
    code = compile(source, path, "exec")
    # Warm, as a forker is: the script's imports loaded and its module-level patterns compiled
    # into `re`'s cache, by running its definitions once (not its `__main__` block).
    exec(code, {"__name__": "prefork_floor_warmup", "__file__": path})
    gc.freeze()
    for label, run in (("fork, os._exit, reap", False), ("fork, run the script, reap", True)):
        times = sorted(call(code, path, payload, run) for _ in range(calls))
        print(f"{statistics.median(times) * 1000:8.3f} ms  {label}")


if __name__ == "__main__":
    main()
