#!/usr/bin/env python3
"""Times two builds of an in-process loop against each other in pairs, so that a change of
load on the machine hits both sides of a pair alike: each program is run with the argument
1000 and prints "<microseconds> us/call" on stderr (as
crates/agent-hooks-guards/examples/dense_loop.rs does). Prints each side's median and the
median of the pairs' ratios (new / old), the figure to trust on a busy machine.

Usage: pair.py OLD_PROGRAM NEW_PROGRAM [PAIRS]   (PAIRS: 40)
Copy the old build's binary aside before building the new one.
"""

import statistics
import subprocess
import sys


def once(program):
    out = subprocess.run([program, "1000"], capture_output=True, text=True, check=True)
    return float(out.stderr.split()[0])


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    old, new = sys.argv[1], sys.argv[2]
    pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    olds, news, ratios = [], [], []
    for _ in range(pairs):
        a, b = once(old), once(new)
        olds.append(a)
        news.append(b)
        ratios.append(b / a)
    print(f"old {old}: median {statistics.median(olds):.1f} us a call, fastest {min(olds):.1f}")
    print(f"new {new}: median {statistics.median(news):.1f} us a call, fastest {min(news):.1f}")
    print(f"new / old, median of {pairs} pairs: {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
