#!/usr/bin/env python3
"""Times whole processes against each other in one run, alternating them round by round so
that a change of load on the machine hits every command alike; each round starts one command
further on than the last, so that no command always follows the same one. Each process is
started with posix_spawn (no shell in between), stdin from a file and stdout to /dev/null; the figures are
the median wall time from spawn to reaped exit, and the median count of page faults the
process took (from its rusage), which load does not change.

Usage: alternate.py ROUNDS STDIN_FILE 'cmd one' 'cmd two' ...
Prints, per command, the median time, its difference from the first command's, and the
median page faults.
Commands are split on spaces (no quoting): keep paths free of spaces.
"""

import os
import statistics
import sys
import time


def run_once(argv, stdin_path):
    stdin = os.open(stdin_path, os.O_RDONLY)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        actions = [(os.POSIX_SPAWN_DUP2, stdin, 0), (os.POSIX_SPAWN_DUP2, null, 1)]
        start = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
        _, status, usage = os.wait4(pid, 0)
        elapsed = time.perf_counter() - start
    finally:
        os.close(stdin)
        os.close(null)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"alternate.py: {' '.join(argv)} exited with {status}")
    return elapsed, usage.ru_minflt + usage.ru_majflt


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, stdin_path = int(sys.argv[1]), sys.argv[2]
    commands = [c.split() for c in sys.argv[3:]]
    times = [[] for _ in commands]
    faults = [[] for _ in commands]
    for r in range(rounds):
        # Each round starts one command further on, so that no command always runs right
        # after the same other: a process can leave work behind it (a log written back, a
        # child reaped late) that slows the one after it.
        shift = r % len(commands)
        for i in list(range(shift, len(commands))) + list(range(shift)):
            argv = commands[i]
            elapsed, count = run_once(argv, stdin_path)
            times[i].append(elapsed)
            faults[i].append(count)
    base = statistics.median(times[0])
    for argv, spent, counts in zip(commands, times, faults):
        median = statistics.median(spent)
        print(
            f"{median * 1000:8.3f} ms {(median - base) * 1000:+8.3f} ms "
            f"{statistics.median(counts):6.0f} faults  {' '.join(argv)}"
        )


if __name__ == "__main__":
    main()
